#!/usr/bin/env node
// The `kfek` command (package.json "bin"). The CLI is TypeScript in cli/; ts-node compiles it on the fly in
// transpile-only mode (no type checking: `npm run typecheck` does that), so `npx kfek ...` works right after
// `npm ci` with no build step.
'use strict';
const path = require('node:path');

// On Node 20 the AWS SDK warns on every run that its releases from 2027 need Node 22. It is
// not about anything the user asked for, so the CLI drops that one warning and keeps every other.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = (warning, ...rest) => {
  const type = typeof rest[0] === 'string' ? rest[0] : rest[0] && rest[0].type;
  const name = warning instanceof Error ? warning.name : type;
  if (name === 'NodeVersionSupportWarning' || String(warning).includes('NodeVersionSupportWarning')) return;
  emitWarning(warning, ...rest);
};

require('ts-node').register({
  transpileOnly: true,
  project: path.join(__dirname, '..', 'tsconfig.json'),
  compilerOptions: { module: 'commonjs' },
});

require('../cli/main')
  .run(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
