/**
 * The collection's data access policy (core/opensearch/serverless-access.ts) for the scheduled reconcile function:
 * it reads every family and kfek's record and lists the index templates, and writes or deletes nothing (its heal
 * goes through the raw stream).
 */
import {
  collectionAccessPolicy,
  collectionResource,
  indexResource,
  policyAllows,
} from '../../../core/opensearch/serverless-access';

const RECONCILE = 'arn:aws:iam::123456789012:role/reconcile';
const POLICY = collectionAccessPolicy({
  collection: 'c',
  writers: ['arn:aws:iam::123456789012:role/indexer'],
  admins: ['arn:aws:iam::123456789012:role/admin'],
  families: [
    { indexPattern: 'logs-*', readers: [] },
    { indexPattern: 'payments-*', readers: ['arn:aws:iam::123456789012:role/payments'] },
  ],
  reconcilers: [RECONCILE],
  recordIndex: '.kfek-registry',
});
const allows = (permission: string, resource: string): boolean =>
  policyAllows(POLICY, RECONCILE, permission, resource);

describe('the reconcile function in the data access policy', () => {
  test('reads every family and the record, and lists the index templates', () => {
    // THEN
    for (const index of ['logs-2026-11-29', 'payments-2026-11-29', '.kfek-registry']) {
      expect([index, allows('aoss:ReadDocument', indexResource('c', index))]).toEqual([index, true]);
      expect(allows('aoss:DescribeIndex', indexResource('c', index))).toBe(true);
    }
    expect(allows('aoss:DescribeCollectionItems', collectionResource('c'))).toBe(true);
  });

  test('fails when it would write, delete, change templates or read an index that is not kfek’s', () => {
    // THEN
    for (const permission of [
      'aoss:WriteDocument',
      'aoss:CreateIndex',
      'aoss:UpdateIndex',
      'aoss:DeleteIndex',
    ]) {
      expect([permission, allows(permission, indexResource('c', 'logs-2026-11-29'))]).toEqual([
        permission,
        false,
      ]);
    }
    expect(allows('aoss:UpdateCollectionItems', collectionResource('c'))).toBe(false);
    expect(allows('aoss:ReadDocument', indexResource('c', 'other-team-2026-11-29'))).toBe(false);
  });

  test('no reconcile statement without reconcilers', () => {
    // WHEN
    const policy = collectionAccessPolicy({ collection: 'c', writers: [], admins: [], families: [] });
    // THEN
    expect(policy.some((s) => s.Description.includes('reconcile'))).toBe(false);
  });
});
