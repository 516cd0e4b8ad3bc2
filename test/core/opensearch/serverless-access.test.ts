/**
 * The collection's data access policy (core/opensearch/serverless-access.ts) for kfek's own roles: the scheduled
 * reconcile function reads every family and kfek's record and lists the index templates, and writes or deletes nothing
 * (its heal goes through the raw stream); the provisioner writes the index templates and kfek's record only.
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

describe("the provisioner in the data access policy: the index templates and kfek's record, nothing else", () => {
  const PROVISIONER = 'arn:aws:iam::123456789012:role/provisioner';
  const policy = collectionAccessPolicy({
    collection: 'c',
    writers: [],
    admins: [],
    provisioners: [PROVISIONER],
    families: [{ indexPattern: 'logs-*', readers: [] }],
    recordIndex: '.kfek-registry',
  });
  const may = (permission: string, resource: string): boolean =>
    policyAllows(policy, PROVISIONER, permission, resource);

  test('lists and writes the index templates, and reads, creates and writes the record', () => {
    // THEN
    for (const permission of ['Describe', 'Create', 'Update'].map((v) => `aoss:${v}CollectionItems`)) {
      expect([permission, may(permission, collectionResource('c'))]).toEqual([permission, true]);
    }
    for (const permission of ['aoss:ReadDocument', 'aoss:CreateIndex', 'aoss:WriteDocument']) {
      expect([permission, may(permission, indexResource('c', '.kfek-registry'))]).toEqual([permission, true]);
    }
  });

  test('fails when it would delete a template, touch a family, delete the record or reach another collection', () => {
    // THEN
    expect(may('aoss:DeleteCollectionItems', collectionResource('c'))).toBe(false);
    expect(may('aoss:UpdateCollectionItems', collectionResource('other'))).toBe(false);
    expect(may('aoss:DeleteIndex', indexResource('c', '.kfek-registry'))).toBe(false);
    for (const permission of [
      'ReadDocument',
      'WriteDocument',
      'CreateIndex',
      'DeleteIndex',
      'DescribeIndex',
    ]) {
      expect([permission, may(`aoss:${permission}`, indexResource('c', 'logs-2026-11-29'))]).toEqual([
        permission,
        false,
      ]);
    }
  });

  test('no provisioner statement without provisioners, and the admins keep aoss:*', () => {
    // WHEN
    const admins = collectionAccessPolicy({ collection: 'c', writers: [], admins: ['a'], families: [] });
    // THEN
    expect(admins.some((s) => s.Description.includes('provisioner'))).toBe(false);
    expect(policyAllows(admins, 'a', 'aoss:DeleteCollectionItems', collectionResource('c'))).toBe(true);
    expect(policyAllows(admins, 'a', 'aoss:DeleteIndex', indexResource('c', 'logs-1'))).toBe(true);
  });
});
