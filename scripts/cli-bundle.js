// Builds and checks the `kfek` CLI's JavaScript bundle (bin/kfek-cli.js runs it; build tooling, so it lives in
// scripts/, not among the composition roots of bin/). Plain JavaScript on purpose:
// it runs before anything could compile TypeScript, from `npm ci`'s prepare step and from the launcher.
//
// The bundle is ES modules, split at cli/main.ts's dynamic import of the command runners, so `kfek --help` and
// usage errors load only the parser (no AWS SDK); the packages' ES module builds are preferred (`mainFields`), as
// for the Lambda bundles, because they load faster. It lives in .kfek/cli/ (ignored) with a list of the project
// files it was built from; it is stale when one of them is newer than the bundle or gone, and is then rebuilt.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const OUT_DIR = path.join(ROOT, '.kfek', 'cli');
const ENTRY = path.join(OUT_DIR, 'main.mjs');
const INPUTS = path.join(OUT_DIR, 'inputs.json');
/** Files outside the import graph that change what the bundle contains: dependency versions, this builder. */
const ALWAYS_INPUTS = ['package.json', 'package-lock.json', 'scripts/cli-bundle.js'];

/** True when the bundle exists and no project file it was built from changed since. */
function isFresh() {
  let built;
  let inputs;
  try {
    built = fs.statSync(ENTRY).mtimeMs;
    inputs = JSON.parse(fs.readFileSync(INPUTS, 'utf8'));
  } catch {
    return false;
  }
  if (!Array.isArray(inputs)) return false;
  for (const file of inputs) {
    try {
      if (fs.statSync(path.join(ROOT, file)).mtimeMs > built) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Writes `contents` to `file` through a temporary file and a rename, so a concurrent run never reads half a file. */
function writeAtomically(file, contents) {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

/** Builds the bundle with the local esbuild; throws what esbuild throws (a compile error, or no esbuild). */
function build() {
  const esbuild = require('esbuild');
  const result = esbuild.buildSync({
    absWorkingDir: ROOT,
    entryPoints: { main: 'cli/main.ts' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    mainFields: ['module', 'main'],
    outExtension: { '.js': '.mjs' },
    outdir: OUT_DIR,
    // CommonJS dependencies keep a working `require` inside the ES modules (see lib/constructs/bundling.ts), and
    // `__dirname` (which ES modules lack) is cli/, the folder of the sources that use it (cli/profile.ts finds
    // cdk.json beside it), wherever the project lives: it is computed from the bundle's own location.
    banner: {
      js:
        "import { createRequire as kfekCreateRequire } from 'node:module'; " +
        "import { fileURLToPath as kfekFileURLToPath } from 'node:url'; " +
        'const require = kfekCreateRequire(import.meta.url); ' +
        "const __dirname = kfekFileURLToPath(new URL('../../cli/', import.meta.url));",
    },
    sourcemap: true,
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const inputs = Object.keys(result.metafile.inputs).filter((file) => !file.startsWith('node_modules/'));
  writeAtomically(INPUTS, JSON.stringify([...ALWAYS_INPUTS, ...inputs]));
  // Chunks first, the entry last: the entry's modification time is the bundle's build time.
  const files = [...result.outputFiles].sort((a, b) => Number(a.path === ENTRY) - Number(b.path === ENTRY));
  for (const file of files) writeAtomically(file.path, file.contents);
  removeOldChunks(new Set([INPUTS, ...files.map((file) => file.path)]));
  return ENTRY;
}

/**
 * Deletes chunks of earlier builds (their names carry a content hash, so each rebuild adds new ones). Only files
 * older than a minute go: a `kfek` started just before this rebuild may still be loading its chunks.
 */
function removeOldChunks(current) {
  const cutoff = Date.now() - 60_000;
  for (const name of fs.readdirSync(OUT_DIR)) {
    const file = path.join(OUT_DIR, name);
    try {
      if (!current.has(file) && fs.statSync(file).mtimeMs < cutoff) fs.rmSync(file, { force: true });
    } catch {
      // Another build removed it first.
    }
  }
}

module.exports = { ENTRY, OUT_DIR, build, isFresh };

if (require.main === module) {
  // `npm ci` / `npm install` (prepare): build now, so the first `kfek` answers at once. A failure is not fatal
  // here: the launcher falls back to ts-node and says so.
  try {
    build();
  } catch (error) {
    process.stderr.write(`kfek: the CLI bundle was not built (${String(error.message).split('\n')[0]})\n`);
  }
}
