#!/usr/bin/env bash
# Installs the Python tools the tests and the local run need into the project's own
# virtualenv (.venv, git-ignored), never system-wide: moto's server (AWS API emulator for
# CloudWatch Logs, Kinesis, S3, SQS), cfn-lint, and the AWS CLI (awscli, v1 from PyPI: its argument parsing,
# shorthand included, is the same code as v2's) that the executable deploy-guide tests run against moto. Idempotent and quick when already done.
# Serialized with a lock so parallel callers never build the venv twice. The lock is taken with Python's fcntl on
# this shell's fd 9 (the lock belongs to the open file, which this shell keeps open), so no `flock` binary is needed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/.kfek-tools-v2"
command -v python3 >/dev/null || { echo "npm start needs python3 (3.9+) on PATH, with its venv module" >&2; exit 1; }
exec 9>"$root/.venv.lock"
python3 -c 'import fcntl; fcntl.flock(9, fcntl.LOCK_EX)'
if [ -f "$stamp" ]; then exit 0; fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check 'moto[server]==5.2.5' 'cfn-lint==1.58.0' 'awscli==1.46.2'
touch "$stamp"
