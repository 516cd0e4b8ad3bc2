// Masks 64-hex asset hashes in snapshots so that a change to the bundled Lambda
// code does not churn every stack snapshot (cdklabs/cdk-monitoring-constructs does the same).
const HASH = /[0-9a-f]{64}/g;
module.exports = {
  test: (val) => typeof val === 'string' && /[0-9a-f]{64}/.test(val),
  serialize: (val) => `"${val.replace(HASH, '[HASH REMOVED]')}"`,
};
