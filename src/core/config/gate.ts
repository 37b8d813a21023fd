/**
 * The one gate every connect passes. A connection asks its {@link ConnectGate} before each
 * connect — the first start, a restart after a crash or a lost connection, the reconnect after a
 * sign-in or a sign-out, and before a sign-in contacts anything — so no command, API, chat tool or
 * timer reaches a server the gate does not allow *now*. The registry asks {@link ConnectGate.mayStay}
 * whenever the gate changes (an approval revoked) and stops what may no longer run.
 *
 * {@link DefinitionGate} is the gate of the extension: workspace trust and first-start approvals
 * (trust.ts), the approval's question asked through a port (a modal dialog in VS Code), the
 * definition's envFile read for the approval through another.
 */
import { Emitter, type Event } from '../base/event.js';
import { Disposable } from '../base/lifecycle.js';
import type { ServerDefinition, TransportDefinition } from './config.js';
import type { ConsentStore } from './consent.js';
import { readEnvFileForReview, type EnvFileSnapshot, type LaunchContext, type LaunchSummary } from './launchSummary.js';
import { decideStart, declinedReason, revokedReason, type GateState, type StartDecision } from './trust.js';

/** `true`, or the reason the server may not connect (shown as its "blocked" state). */
export type GateVerdict = true | string;

/**
 * A connect let through after reading the definition's envFile for the decision: the start uses
 * these contents rather than reading the file again, so what runs is what was approved (a file
 * changed while the question was open would otherwise run unreviewed).
 */
export interface ApprovedEnvFile {
  readonly envFile: { readonly path: string; readonly text: string };
}

/** A verdict before a connect: a reason not to ({@link GateVerdict}'s string), or a pass, perhaps with the envFile it read. */
export type ConnectVerdict = GateVerdict | ApprovedEnvFile;

/** Whether a connect verdict lets the server connect. */
export function passes(verdict: ConnectVerdict): verdict is true | ApprovedEnvFile {
  return typeof verdict !== 'string';
}

/** What a connection asks before it connects. */
export interface ConnectGate {
  /** Before every connect: a pass, or why not. May ask the user first (a promise); nothing is resolved, spawned or contacted before it answers. */
  mayConnect(def: ServerDefinition): ConnectVerdict | Promise<ConnectVerdict>;
  /** Without asking anyone: whether a server that is connected (or retrying) may stay so. */
  mayStay(def: ServerDefinition): Promise<GateVerdict>;
  /** Fires when an answer may have changed (an approval granted or revoked, trust granted). */
  readonly onDidChange: Event<void>;
}

export interface DefinitionGateOptions {
  /** `vscode.workspace.isTrusted`. */
  readonly workspaceTrusted: () => boolean;
  /** The user's own `mcpTasks.workspaceServers.firstStart`. */
  readonly firstStart: () => 'ask' | 'allow';
  readonly consents: ConsentStore;
  /** Asks the user whether to start `def` for the first time, showing `launch`; true: approved. */
  readonly ask: (def: ServerDefinition, launch: LaunchSummary) => Promise<boolean>;
  /** What `${workspaceFolder}` and `${userHome}` stand for in `def` (shown resolved; the envFile is read there). */
  readonly pathsFor: (def: ServerDefinition) => Pick<LaunchContext, 'workspaceFolder' | 'userHome'>;
  /** Reads a text file (the envFile). */
  readonly readText: (path: string) => Promise<string>;
  /** A server was blocked because the workspace is not trusted. */
  readonly onUntrusted?: () => void;
}

/** Workspace trust and first-start approval as a {@link ConnectGate}. */
export class DefinitionGate extends Disposable implements ConnectGate {
  private readonly _onDidChange = this._register(new Emitter<void>());
  readonly onDidChange: Event<void> = this._onDidChange.event;
  /** Questions in progress, by fingerprint: two connects of one definition share one question. */
  private readonly _pending = new Map<string, Promise<ConnectVerdict>>();
  /** One question at a time. */
  private _queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly _o: DefinitionGateOptions) {
    super();
    this._register(_o.consents.onDidChange(() => this._onDidChange.fire()));
  }

  /** Trust was granted (or another input of the decision changed): connections re-check. */
  changed(): void {
    this._onDidChange.fire();
  }

  mayConnect(def: ServerDefinition): ConnectVerdict | Promise<ConnectVerdict> {
    // Decided without reading anything where that is enough (user servers, untrusted workspaces).
    const quick = this._decideQuickly(def);
    if (quick) return this._verdict(quick);
    return this._decide(def).then(({ decision: d, envFile }) => {
      if (d.kind !== 'ask') return withEnvFile(this._verdict(d), envFile);
      const pending = this._pending.get(d.fingerprint);
      if (pending) return pending;
      const asked = this._queue
        .then(() => this._ask(def, d.fingerprint, d.launch))
        .then((v) => withEnvFile(v, envFile))
        .finally(() => this._pending.delete(d.fingerprint));
      this._queue = asked.catch(() => undefined);
      this._pending.set(d.fingerprint, asked);
      return asked;
    });
  }

  async mayStay(def: ServerDefinition): Promise<GateVerdict> {
    const d = this._decideQuickly(def) ?? (await this._decide(def)).decision;
    if (d.kind !== 'ask') return this._verdict(d);
    // Its question is open (a restart waiting for the user): the answer decides, not this check.
    return this._pending.has(d.fingerprint) ? true : revokedReason(def);
  }

  private _state(): GateState {
    return { workspaceTrusted: this._o.workspaceTrusted(), approved: (fp) => this._o.consents.has('firstStart', fp), firstStart: this._o.firstStart() };
  }

  /** A decision that needs no envFile read (user servers, untrusted workspaces); undefined otherwise. */
  private _decideQuickly(def: ServerDefinition): Exclude<StartDecision, { kind: 'ask' }> | undefined {
    if (def.source.kind === 'workspace' && this._o.workspaceTrusted()) return undefined;
    const d = decideStart(def, this._state());
    return d.kind === 'ask' ? undefined : d;
  }

  private async _decide(def: ServerDefinition): Promise<{ decision: StartDecision; envFile?: EnvFileSnapshot }> {
    const paths = this._o.pathsFor(def);
    const envFile = await readEnvFileForReview(def, paths, this._o.readText);
    return { decision: decideStart(def, this._state(), { ...paths, envFile }), envFile };
  }

  private _verdict(d: Exclude<StartDecision, { kind: 'ask' }>): GateVerdict {
    if (d.kind === 'start') return true;
    if (d.untrusted) this._o.onUntrusted?.();
    return d.reason;
  }

  private async _ask(def: ServerDefinition, fingerprint: string, launch: LaunchSummary): Promise<GateVerdict> {
    // Approved meanwhile (an earlier question about the same definition)?
    if (this._o.consents.has('firstStart', fingerprint)) return true;
    // A question that cannot be shown (it throws) counts as "no".
    const yes = await this._o.ask(def, launch).catch(() => false);
    if (!yes) return declinedReason(def);
    await this._o.consents.grant('firstStart', def, { fingerprint });
    return true;
  }
}

/** A pass carries the envFile read for the decision, when it was read; a refusal stays as it is. */
function withEnvFile(verdict: GateVerdict, envFile: EnvFileSnapshot | undefined): ConnectVerdict {
  return verdict === true && envFile?.text !== undefined ? { envFile: { path: envFile.path, text: envFile.text } } : verdict;
}

/**
 * The resolved transport of a start the gate let through, with the envFile contents it approved
 * when they are of this very file (a path that needed `${input:…}` or `${env:…}` was not read for
 * the approval: it is read when the server starts).
 */
export function withApprovedEnvFile(def: TransportDefinition, verdict: ConnectVerdict): TransportDefinition {
  if (def.type !== 'stdio' || typeof verdict !== 'object' || def.envFile !== verdict.envFile.path) return def;
  return { ...def, envFileText: verdict.envFile.text };
}
