/** Fake-time steps for unit tests that mock timers (`mock.timers.enable({ apis: ['setTimeout', 'Date'] })`). */
import { mock } from 'node:test';

/** Lets pending promise callbacks run (setImmediate is not mocked). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
}

/** Advances fake time by `ms` in small steps, letting async work run between them. */
export async function advance(ms: number, step = 5): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    mock.timers.tick(Math.min(step, ms - done));
    await flush();
  }
}
