#!/usr/bin/env bash
# Synthesizes the whole CDK app offline for every profile in cdk.json (cdk-nag runs as part of synth and fails it
# on any unacknowledged finding), then lints every template with cfn-lint; errors fail, warnings are shown.
#
# No AWS account is needed: the stacks are environment-agnostic unless a profile pins account/region, and the
# instance-metadata lookup the CLI would otherwise try (and wait for) is disabled.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-python-tools.sh >/dev/null

export AWS_EC2_METADATA_DISABLED=true
# Fallbacks only; a developer's own settings win.
export CDK_DEFAULT_REGION="${CDK_DEFAULT_REGION:-us-east-1}"

profiles=$(node -e "
  const ctx = require('./cdk.json').context;
  const names = Object.keys((ctx.kfek && ctx.kfek.profiles) || {});
  console.log((names.length ? names : ['sandbox']).join(' '));
")

status=0
for profile in $profiles; do
  out="cdk.out/profile-${profile}"
  rm -rf "$out"
  echo "--- cdk synth (profile ${profile})"
  start=$(date +%s)
  if ! npx cdk synth --quiet -c "profile=${profile}" -o "$out"; then
    echo "cdk synth failed for profile ${profile}" >&2
    status=1
    continue
  fi
  echo "synthesized in $(($(date +%s) - start)) s"
  echo "--- cfn-lint (profile ${profile})"
  # W3005 (redundant DependsOn) is the known CDK noise; anything at error level fails.
  if ! .venv/bin/cfn-lint --non-zero-exit-code error "$out"/*.template.json; then
    echo "cfn-lint found errors in profile ${profile}" >&2
    status=1
  fi
done
exit "$status"
