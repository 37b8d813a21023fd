/**
 * The one gate every connect passes. A connection asks its {@link ConnectGate} before each
 * connect — the first start, a restart after a crash or a lost connection, the reconnect after a
 * sign-in or a sign-out, and before a sign-in contacts anything — so no command, API, chat tool or
 * timer reaches a server the gate does not allow *now*. The registry asks {@link ConnectGate.mayStay}
 * whenever the gate changes (an approval revoked) and stops what may no longer run.
 *
 * {@link DefinitionGate} is the gate of the extension: workspace trust and first-start approvals
 * (trust.ts), the approval's question asked through a port (a modal dialog in VS Code), the
 * definition's envFile read for the approval (bounded: boundedRead.ts). Definitions that need an
 * approval at the same time (the workspace's servers starting together) are asked about in one
 * question, answered per definition.
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

/** One definition the user is asked to approve, with what starting it would run or contact. */
export interface ApprovalRequest {
  readonly def: ServerDefinition;
  readonly launch: LaunchSummary;
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
  /**
   * Asks the user, in one question, whether to start each of these definitions for the first
   * time (one or more; those that became due together); an answer per request, in order, true:
   * approved. A missing answer is a "no".
   */
  readonly ask: (requests: readonly ApprovalRequest[]) => Promise<readonly boolean[]>;
  /** What `${workspaceFolder}` and `${userHome}` stand for in `def` (shown resolved; the envFile is read there). */
  readonly pathsFor: (def: ServerDefinition) => Pick<LaunchContext, 'workspaceFolder' | 'userHome'>;
  /** Reads a text file (the envFile); by default bounded (boundedRead.ts `readBoundedText`). */
  readonly readText?: (path: string) => Promise<string>;
  /** A server was blocked because the workspace is not trusted. */
  readonly onUntrusted?: () => void;
}

/** A definition waiting for its question, and how to answer its connects. */
interface Waiting extends ApprovalRequest {
  readonly fingerprint: string;
  readonly settle: (verdict: GateVerdict) => void;
}

/** Workspace trust and first-start approval as a {@link ConnectGate}. */
export class DefinitionGate extends Disposable implements ConnectGate {
  private readonly _onDidChange = this._register(new Emitter<void>());
  readonly onDidChange: Event<void> = this._onDidChange.event;
  /** Questions in progress, by fingerprint: two connects of one definition share one question. */
  private readonly _pending = new Map<string, Promise<ConnectVerdict>>();
  /** Definitions due for a question not asked yet: asked together, in the next question. */
  private _waiting: Waiting[] = [];
  /** Connects whose decision is being made (their envFile read): the question waits for them. */
  private _deciding = 0;
  private _gathering = false;
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
    return this._decideOrAsk(def);
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

  private async _decideOrAsk(def: ServerDefinition): Promise<ConnectVerdict> {
    let verdict: ConnectVerdict | Promise<ConnectVerdict>;
    this._deciding++;
    try {
      const { decision: d, envFile } = await this._decide(def);
      if (d.kind !== 'ask') verdict = withEnvFile(this._verdict(d), envFile);
      else verdict = this._pending.get(d.fingerprint) ?? this._wait(def, d.fingerprint, d.launch, envFile);
    } finally {
      this._deciding--;
      this._gather();
    }
    return verdict;
  }

  /** Puts a definition in the next question; the promise of its verdict. */
  private _wait(def: ServerDefinition, fingerprint: string, launch: LaunchSummary, envFile: EnvFileSnapshot | undefined): Promise<ConnectVerdict> {
    const asked = new Promise<GateVerdict>((settle) => this._waiting.push({ def, launch, fingerprint, settle }))
      .then((v) => withEnvFile(v, envFile))
      .finally(() => this._pending.delete(fingerprint));
    this._pending.set(fingerprint, asked);
    return asked;
  }

  /**
   * Asks about the waiting definitions once no other decision is being made and one turn of the
   * event loop has passed: connects that start together (the registry starting every server of a
   * workspace, each a few awaits apart) reach one question instead of a modal each.
   */
  private _gather(): void {
    if (this._deciding > 0 || this._gathering || this._waiting.length === 0) return;
    this._gathering = true;
    setImmediate(() => {
      this._gathering = false;
      // Another decision started meanwhile: the last one to finish gathers.
      if (this._deciding > 0) return;
      const batch = this._waiting.splice(0);
      if (!batch.length) return;
      this._queue = this._queue.then(() => this._ask(batch)).catch(() => undefined);
    });
  }

  private async _ask(batch: readonly Waiting[]): Promise<void> {
    // Approved meanwhile (an earlier question about the same definition)?
    const open: Waiting[] = [];
    for (const w of batch) {
      if (this._o.consents.has('firstStart', w.fingerprint)) w.settle(true);
      else open.push(w);
    }
    if (!open.length) return;
    if (this._isDisposed) {
      for (const w of open) w.settle(`${declinedReason(w.def)} (not asked: the extension is shutting down)`);
      return;
    }
    // A question that cannot be shown (it throws) counts as "no" for all.
    const answers = await this._o.ask(open.map(({ def, launch }) => ({ def, launch }))).catch(() => [] as readonly boolean[]);
    for (const [i, w] of open.entries()) {
      if (answers[i] !== true) {
        w.settle(declinedReason(w.def));
        continue;
      }
      // Bound per definition: each approval is remembered under its own fingerprint. One that
      // cannot be stored still lets this start through (the user said yes); the next start asks again.
      await this._o.consents.grant('firstStart', w.def, { fingerprint: w.fingerprint }).catch(() => undefined);
      w.settle(true);
    }
  }

  private _verdict(d: Exclude<StartDecision, { kind: 'ask' }>): GateVerdict {
    if (d.kind === 'start') return true;
    if (d.untrusted) this._o.onUntrusted?.();
    return d.reason;
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
