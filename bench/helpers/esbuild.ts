/** Bundling for benchmarks, with the local esbuild (a devDependency), into the ignored .kfek/bench/. */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');
export const BENCH_OUT_DIR = join(ROOT, '.kfek/bench');

interface EsbuildLike {
  buildSync(options: Record<string, unknown>): unknown;
}

/** Bundles `entry` into one file for node (CommonJS unless `options` say otherwise); throws what esbuild throws. */
export function bundle(entry: string, outfile: string, options: Record<string, unknown>): void {
  mkdirSync(BENCH_OUT_DIR, { recursive: true });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('esbuild') as EsbuildLike).buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile,
    logLevel: 'silent',
    ...options,
  });
}
