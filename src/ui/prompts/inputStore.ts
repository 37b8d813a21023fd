import type * as vscode from 'vscode';
import { definitionFingerprint, type InputDefinition, type ServerDefinition } from '../../core/config/config.js';

/** Prefix of this extension's SecretStorage keys for `${input:…}` values. */
const SECRET_PREFIX = 'mcpTasks.input:';

/**
 * Values given for `${input:id}`. A `password: true` value is kept only in VS Code's
 * SecretStorage (encrypted by the OS keychain, remembered across sessions); any other value only
 * in memory for this session. Never in global or workspace state, never logged. Keyed by the
 * definition's fingerprint (its file, name and content) and the input's id: one workspace never
 * receives another's value, and an edited definition (a command or URL changed to send the value
 * elsewhere) or another server of the same file asks again instead of being given it.
 */
export class InputValueStore {
  private readonly _session = new Map<string, string>();

  constructor(private readonly _secrets: vscode.SecretStorage) {}

  async get(def: ServerDefinition, input: InputDefinition): Promise<string | undefined> {
    const key = inputKey(def, input);
    if (isPassword(input)) return this._secrets.get(SECRET_PREFIX + key);
    return this._session.get(key);
  }

  async set(def: ServerDefinition, input: InputDefinition, value: string): Promise<void> {
    const key = inputKey(def, input);
    if (isPassword(input)) await this._secrets.store(SECRET_PREFIX + key, value);
    else this._session.set(key, value);
  }

  /** Forgets the value of one input of one definition: the next start asks for it again. */
  async forget(def: ServerDefinition, input: InputDefinition): Promise<void> {
    const key = inputKey(def, input);
    this._session.delete(key);
    if (isPassword(input)) await this._secrets.delete(SECRET_PREFIX + key);
  }

  /** Forgets every stored value (secrets and session); returns how many were forgotten. */
  async clear(): Promise<number> {
    const keys = (await this._secrets.keys()).filter((k) => k.startsWith(SECRET_PREFIX));
    await Promise.all(keys.map((k) => this._secrets.delete(k)));
    const n = keys.length + this._session.size;
    this._session.clear();
    return n;
  }
}

function isPassword(input: InputDefinition): boolean {
  return input.type === 'promptString' && input.password === true;
}

function inputKey(def: ServerDefinition, input: InputDefinition): string {
  // JSON: no fingerprint/id pair can spell another (names and ids may contain any separator).
  return JSON.stringify([definitionFingerprint(def), input.id]);
}
