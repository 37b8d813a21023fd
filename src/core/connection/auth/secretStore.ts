/**
 * Where OAuth secrets live: a port. The extension backs it with VS Code's `SecretStorage`
 * (whose `get`/`store`/`delete`/`keys` it matches); the headless client and the tests with
 * {@link MemorySecretStore}. Nothing here ever reaches a log.
 */
export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
  keys(): PromiseLike<readonly string[]>;
}

/** A {@link SecretStore} in memory (one process, nothing persisted). */
export class MemorySecretStore implements SecretStore {
  readonly values = new Map<string, string>();
  async get(key: string): Promise<string | undefined> {
    return this.values.get(key);
  }
  async store(key: string, value: string): Promise<void> {
    this.values.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.values.delete(key);
  }
  async keys(): Promise<readonly string[]> {
    return [...this.values.keys()];
  }
}
