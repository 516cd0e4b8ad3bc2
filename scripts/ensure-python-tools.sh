#!/usr/bin/env bash
# Installs the Python tools the tests and the local run need into the project's own
# virtualenv (.venv, git-ignored), never system-wide: moto's server (AWS API emulator for
# CloudWatch Logs, Kinesis, S3, SQS) and cfn-lint. Idempotent and quick when already done.
# Serialized with a lock so parallel callers never build the venv twice.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/.kfek-tools-v1"
exec 9>"$root/.venv.lock"
flock 9
if [ -f "$stamp" ]; then exit 0; fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check 'moto[server]==5.2.5' 'cfn-lint==1.58.0'
touch "$stamp"
