/** How the bench reads the real-VS-Code activations the suite's sessions record (bench/startup.ts, test/vscode/activationRecord.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activationRecordOf } from '../../../bench/startup.js';

describe('activationRecordOf', () => {
  it("reads every session of a run's record, with the VS Code version", () => {
    const text = JSON.stringify({
      vscode: '1.139.1',
      run: '/tmp/run',
      activations: [
        { session: 'main', wallMs: 60.4, cpuMs: 24.4 },
        { session: 'afterReload', wallMs: 65.7, cpuMs: 75.6 },
        { session: 'restricted', wallMs: 26, cpuMs: 22.9 },
      ],
    });
    assert.deepEqual(activationRecordOf(text), {
      vscode: '1.139.1',
      samples: [
        { session: 'main', wallMs: 60.4, cpuMs: 24.4 },
        { session: 'afterReload', wallMs: 65.7, cpuMs: 75.6 },
        { session: 'restricted', wallMs: 26, cpuMs: 22.9 },
      ],
    });
  });

  it('leaves out a session without its figures', () => {
    const text = JSON.stringify({ run: 'r', activations: [{ session: 'main', wallMs: 10 }, null, { session: 'restricted', wallMs: 20, cpuMs: 15 }] });
    assert.deepEqual(activationRecordOf(text), { vscode: undefined, samples: [{ session: 'restricted', wallMs: 20, cpuMs: 15 }] });
  });

  it('reads the single figure older runs wrote as one session', () => {
    const text = JSON.stringify({ activationTimeMs: 48, activationCpuMs: 34.8, vscode: '1.139.1' });
    assert.deepEqual(activationRecordOf(text), { vscode: '1.139.1', samples: [{ session: 'main', wallMs: 48, cpuMs: 34.8 }] });
  });

  it('finds nothing in a file that is not JSON', () => {
    assert.deepEqual(activationRecordOf('{"activations": ['), { samples: [] });
  });
});
