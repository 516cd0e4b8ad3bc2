/**
 * The environment is read at the edges only (lib/config.ts documents which): code below an entry point gets what
 * it needs as a parameter, so tests pass their own values and nothing changes behaviour behind a caller's back.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** The one place per runtime that reads `process.env`. */
const EDGES = new Set([
  'lib/config.ts',
  'lambda/transform/env.ts',
  'lambda/indexer/env.ts',
  'lambda/opensearch-provisioner/handler.ts',
  'lambda/reconcile/handler.ts',
  'lambda/serverless-retention/handler.ts',
  'cli/main.ts',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

test('only the edges of lib/, lambda/, core/ and cli/ read process.env', () => {
  const readers = ['lib', 'lambda', 'core', 'cli']
    .flatMap((dir) => sourceFiles(path.join(ROOT, dir)))
    .map((file) => path.relative(ROOT, file).split(path.sep).join('/'))
    .filter((file) =>
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .some((line) => !/^\s*(\*|\/\/|\/\*)/.test(line) && /\bprocess\.env\b/.test(line)),
    );
  expect(readers.filter((file) => !EDGES.has(file))).toEqual([]);
});
