#!/usr/bin/env node
// Runs `node --import tsx --test` on every *.test.ts below the given folders (nested folders
// included: Node 20's --test takes no globs, and `sh` under `npm run` has no globstar).
//
//   node scripts/node-tests.mjs test/unit [--test-concurrency=2 …]
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dirs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const files = dirs.flatMap((dir) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(dir, f)),
).sort();
if (files.length === 0) {
  console.error(`no *.test.ts below ${dirs.join(', ')}`);
  process.exit(1);
}
const child = spawn(process.execPath, ['--import', 'tsx', '--test', ...flags, ...files], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
