#!/usr/bin/env node
// The `kfek` command (package.json "bin"). It runs the prebuilt JavaScript bundle of cli/ (.kfek/cli/, built by
// `npm ci`'s prepare step, see scripts/cli-bundle.js); a missing or stale bundle is rebuilt first (~1 s), and if
// that fails (no esbuild, a compile error) the TypeScript sources run through ts-node in transpile-only mode, as
// before: slower, but never a stale CLI.
'use strict';
const path = require('node:path');

// On Node 20 the AWS SDK warns on every run that its releases from 2027 need Node 22. It is not about anything
// the user asked for, so the CLI switches it off with the SDK's own setting (unless the user set it); every
// other warning is still printed. The SDK emits it as a string warning, whose `name` is just `Warning`, so a
// filter on the warning's name never matched it.
if (process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED === undefined) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
}

function loadBundle() {
  const bundle = require('../scripts/cli-bundle');
  if (process.env.KFEK_CLI_FROM_SOURCE === '1') return undefined;
  try {
    if (!bundle.isFresh()) bundle.build();
  } catch (error) {
    process.stderr.write(
      `kfek: running from source (slower): the CLI bundle could not be built: ${String(error.message).split('\n')[0]}\n`,
    );
    return undefined;
  }
  return import(require('node:url').pathToFileURL(bundle.ENTRY).href);
}

function loadSource() {
  require('ts-node').register({
    transpileOnly: true,
    project: path.join(__dirname, '..', 'tsconfig.json'),
    compilerOptions: { module: 'commonjs' },
  });
  return Promise.resolve(require('../cli/main'));
}

(loadBundle() ?? loadSource())
  .then((cli) => cli.run(process.argv.slice(2)))
  .then((code) => {
    process.exitCode = code;
  });
