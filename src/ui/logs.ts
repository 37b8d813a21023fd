import * as vscode from 'vscode';
import type { ServerLog } from '../core/connection.js';

/** One `LogOutputChannel` per server, created on first use and kept until disposed. */
export class ServerLogs implements vscode.Disposable {
  private readonly _channels = new Map<string, vscode.LogOutputChannel>();

  /** The log of a server, as the core's `ServerLog`. */
  logFor(serverId: string, serverName: string): ServerLog {
    const channel = this.channel(serverId, serverName);
    return {
      trace: (m) => channel.trace(m),
      debug: (m) => channel.debug(m),
      info: (m) => channel.info(m),
      warn: (m) => channel.warn(m),
      error: (m) => channel.error(m),
      // The JSON-RPC trace is formatted only when the channel's level is Trace.
      get traceEnabled() {
        return channel.logLevel === vscode.LogLevel.Trace;
      },
    };
  }

  channel(serverId: string, serverName = serverId): vscode.LogOutputChannel {
    let c = this._channels.get(serverId);
    if (!c) {
      c = vscode.window.createOutputChannel(`MCP Tasks: ${serverName}`, { log: true });
      this._channels.set(serverId, c);
    }
    return c;
  }

  /** Shows a server's log (or the extension's own log when none is given). */
  show(serverId: string | undefined): void {
    if (serverId && this._channels.has(serverId)) this._channels.get(serverId)!.show(true);
  }

  has(serverId: string): boolean {
    return this._channels.has(serverId);
  }

  dispose(): void {
    for (const c of this._channels.values()) c.dispose();
    this._channels.clear();
  }
}
