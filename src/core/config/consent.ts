/**
 * What the user approved once and for all, keyed by the identity of a server *definition*
 * ({@link definitionFingerprint}: source file + name + content hash), never by a server's name:
 * a server called `demo` in another workspace, or an edited definition, is asked again.
 *
 * Kinds: `firstStart` (a workspace definition may start; its fingerprint also covers the
 * contents of the definition's envFile, trust.ts), `sampling` ("Always allow" language model use,
 * for the one model it was given for). Stored as one JSON value (the UI keeps it in global state);
 * listed and revoked from the palette. No `vscode` import.
 */
import { definitionFingerprint, type ServerDefinition } from './config.js';
import { Emitter, type Event } from '../base/event.js';
import { Disposable } from '../base/lifecycle.js';
import { quoteText } from '../base/quote.js';

export type ConsentKind = 'firstStart' | 'sampling';

/** One remembered approval. */
export interface ConsentRecord {
  readonly kind: ConsentKind;
  /** {@link definitionFingerprint} of the definition approved. */
  readonly fingerprint: string;
  readonly serverName: string;
  /** The file (or settings) the definition came from. */
  readonly sourceFile: string;
  /** Epoch ms. */
  readonly grantedAt: number;
  /**
   * `sampling`: the id of the model "Always allow" was given for. Another model (a pinned model
   * changed, the server's preferences choose another) asks again; a record without one grants nothing.
   */
  readonly model?: string;
}

/** Where the records live (VS Code's global state in the extension, a variable in tests). */
export interface ConsentStorage {
  get(): unknown;
  set(value: unknown): PromiseLike<void>;
}

/** Global-state key of the records. */
export const CONSENT_STATE_KEY = 'mcpTasks.consents';
/** The former store of sampling consent by server *name* (any server can take a name): dropped, never honoured. */
export const LEGACY_SAMPLING_CONSENT_KEY = 'mcpTasks.samplingConsent';

/** The remembered approvals. */
export class ConsentStore extends Disposable {
  private readonly _onDidChange = this._register(new Emitter<void>());
  readonly onDidChange: Event<void> = this._onDidChange.event;

  constructor(
    private readonly _storage: ConsentStorage,
    private readonly _now: () => number = Date.now,
  ) {
    super();
  }

  /** Every record, valid ones only (a damaged entry is ignored, i.e. asked again). */
  list(kind?: ConsentKind): ConsentRecord[] {
    const stored = this._storage.get();
    // Nothing approved yet: nothing to check (zod, in the protocol part, is not evaluated for it).
    if (stored === undefined) return [];
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
    return (require('./consentRecords.js') as typeof import('./consentRecords.js')).validConsentRecords(stored).filter((r) => !kind || r.kind === kind);
  }

  /**
   * Whether `kind` was granted for exactly this definition (or this fingerprint) — for sampling,
   * and for exactly this model.
   */
  has(kind: ConsentKind, def: ServerDefinition | string, scope: { readonly model?: string } = {}): boolean {
    const fp = typeof def === 'string' ? def : definitionFingerprint(def);
    return this.list(kind).some((r) => r.fingerprint === fp && (kind !== 'sampling' || (r.model !== undefined && r.model === scope.model)));
  }

  /**
   * Remembers `kind` for this definition: under `fingerprint` when given (a first start: the one
   * the gate computed, envFile included), and for sampling with the model it was given for.
   */
  async grant(kind: ConsentKind, def: ServerDefinition, options: { readonly fingerprint?: string; readonly model?: string } = {}): Promise<void> {
    const fingerprint = options.fingerprint ?? definitionFingerprint(def);
    const rest = this.list().filter((r) => !(r.kind === kind && r.fingerprint === fingerprint));
    const record: ConsentRecord = {
      kind,
      fingerprint,
      serverName: def.name,
      sourceFile: def.source.file,
      grantedAt: this._now(),
      ...(kind === 'sampling' && options.model !== undefined ? { model: options.model } : {}),
    };
    await this._write([...rest, record]);
  }

  /** Forgets the given records (matched by kind and fingerprint). */
  async revoke(records: readonly Pick<ConsentRecord, 'kind' | 'fingerprint'>[]): Promise<void> {
    const drop = new Set(records.map((r) => `${r.kind}\n${r.fingerprint}`));
    await this._write(this.list().filter((r) => !drop.has(`${r.kind}\n${r.fingerprint}`)));
  }

  private async _write(records: ConsentRecord[]): Promise<void> {
    await this._storage.set({ version: 1, records });
    this._onDidChange.fire();
  }
}

/** A one-line label of a record for the revoke list. */
export function consentLabel(r: ConsentRecord): string {
  return r.kind === 'sampling' ? `Always allow sampling: ${quoteText(r.serverName)} with ${quoteText(r.model ?? 'no model')}` : `Approved to start: ${quoteText(r.serverName)}`;
}
