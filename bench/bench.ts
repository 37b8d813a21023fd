import { receiverRound, payloadHeapPerTask } from './receiver.js';
import { envInt } from './common.js';

async function main() {
  const n = envInt('BENCH_N', 1000);
  console.log('payload', await payloadHeapPerTask(n));
  for (const kind of ['in-memory', 'stdio'] as const) {
    for (const side of ['project', 'sdk'] as const) {
      const t = performance.now();
      const r = await receiverRound(side, kind, n, 500);
      console.log(kind, side, JSON.stringify(r), (performance.now() - t).toFixed(0));
    }
  }
}
void main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
