import * as vscode from 'vscode';
import type { ServerLog } from '../../core/connection/connection.js';
import { RedactingLog } from '../../core/base/redact.js';

/**
 * One `LogOutputChannel` per server, created on first use and kept until disposed. Nothing
 * writes to a channel except through {@link logFor}, whose log redacts that server's secrets
 * (and anything credential-like) at every level; the channels themselves are not handed out.
 */
export class ServerLogs implements vscode.Disposable {
  private readonly _channels = new Map<string, vscode.LogOutputChannel>();
  private readonly _logs = new Map<string, RedactingLog>();

  /**
   * The log of a server, as the core's `ServerLog`: one per server, so the secrets its
   * connection learns (input values, tokens) are hidden in every line logged for it.
   */
  logFor(serverId: string, serverName: string): ServerLog {
    let log = this._logs.get(serverId);
    if (!log) {
      const channel = this._channel(serverId, serverName);
      log = new RedactingLog({
        trace: (m) => channel.trace(m),
        debug: (m) => channel.debug(m),
        info: (m) => channel.info(m),
        warn: (m) => channel.warn(m),
        error: (m) => channel.error(m),
        // The JSON-RPC trace is formatted only when the channel's level is Trace.
        get traceEnabled() {
          return channel.logLevel === vscode.LogLevel.Trace;
        },
      });
      this._logs.set(serverId, log);
    }
    return log;
  }

  private _channel(serverId: string, serverName = serverId): vscode.LogOutputChannel {
    let c = this._channels.get(serverId);
    if (!c) {
      c = vscode.window.createOutputChannel(vscode.l10n.t('MCP Tasks: {0}', serverName), { log: true });
      this._channels.set(serverId, c);
    }
    return c;
  }

  /** Shows a server's log (created empty if nothing was logged yet). */
  show(serverId: string, serverName = serverId): void {
    this._channel(serverId, serverName).show(true);
  }

  has(serverId: string): boolean {
    return this._channels.has(serverId);
  }

  dispose(): void {
    for (const c of this._channels.values()) c.dispose();
    this._channels.clear();
    this._logs.clear();
  }
}
