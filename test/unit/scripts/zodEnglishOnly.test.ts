/**
 * The bundles' zod keeps only its English messages (scripts/lib/zodEnglishOnly.mjs): a bundle that
 * uses the `z` namespace as a value, as the SDK does, has `z.locales` = { en } and gives the same
 * messages as zod itself, and is smaller by the other languages.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import * as zod from 'zod';
import { zodEnglishOnly } from '../../../scripts/lib/zodEnglishOnly.mjs';

const ROOT = join(__dirname, '..', '..', '..');

/** Bundles `source` (CJS, minified, as the extension is) and returns its exports and its size. */
async function bundle(source: string, plugins: esbuild.Plugin[]): Promise<{ exports: Record<string, unknown>; bytes: number }> {
  const out = await esbuild.build({
    stdin: { contents: source, resolveDir: ROOT, sourcefile: 'entry.ts', loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    minify: true,
    mainFields: ['module', 'main'],
    write: false,
    logLevel: 'silent',
    plugins,
  });
  const code = out.outputFiles[0]!.text;
  const module = { exports: {} as Record<string, unknown> };
  new Function('module', 'exports', 'require', code)(module, module.exports, createRequire(join(ROOT, 'entry.js')));
  return { exports: module.exports, bytes: code.length };
}

// The SDK's own import (`import * as z from "zod/v4"`), the namespace passed on as a value.
const ENTRY = `
import * as z from 'zod/v4';
export const namespace = z;
export const locales = Object.keys(z.locales);
export const wrongType = z.string().safeParse(1).error?.issues[0]?.message;
export const tooShort = z.string().min(3).safeParse('a').error?.issues[0]?.message;
export const badKey = z.strictObject({ a: z.number() }).safeParse({ a: 1, b: 2 }).error?.issues[0]?.message;
`;

describe('zod in the bundles: English only', () => {
  test('z.locales is English alone, and the messages are zod\'s own', async () => {
    const { exports: b } = await bundle(ENTRY, [zodEnglishOnly]);
    assert.deepEqual(b.locales, ['en']);
    assert.equal(b.wrongType, zod.string().safeParse(1).error?.issues[0]?.message);
    assert.equal(b.tooShort, zod.string().min(3).safeParse('a').error?.issues[0]?.message);
    assert.equal(b.badKey, zod.strictObject({ a: zod.number() }).safeParse({ a: 1, b: 2 }).error?.issues[0]?.message);
    assert.match(String(b.wrongType), /expected string/);
  });

  test('the other languages are not in the bundle', async () => {
    const without = await bundle(ENTRY, []);
    const withPlugin = await bundle(ENTRY, [zodEnglishOnly]);
    assert.ok((without.exports.locales as string[]).length > 10, 'without the plugin every language is there');
    // ≈ 260 KB of other languages, minified.
    assert.ok(without.bytes - withPlugin.bytes > 200_000, `only ${without.bytes - withPlugin.bytes} bytes fewer`);
  });
});
