/**
 * How a collection or policy the account holds differs from what the deploy would create
 * (core/opensearch/serverless-held.ts): judged on what matters, never on key order, set order, principals or
 * descriptions. Pure, so the plans are built by hand; test/cli/doctor/serverless-names.test.ts runs the same decision
 * through `kfek doctor` against moto and synthesized templates.
 */
import { heldDifferences, serverlessNamesOf } from '../../../core/opensearch/serverless-held';
import type { CollectionPlan } from '../../../core/opensearch/serverless-plan';

const NETWORK = [
  { Rules: [{ ResourceType: 'collection', Resource: ['collection/kfek-x'] }], AllowFromPublic: true },
];
const DATA = [
  {
    Description: 'kfek indexer',
    Principal: ['<IndexerRole>'],
    Rules: [
      {
        ResourceType: 'index',
        Resource: ['index/kfek-x/*'],
        Permission: ['aoss:WriteDocument', 'aoss:CreateIndex'],
      },
    ],
  },
  {
    Description: 'kfek readers',
    Principal: ['<ReaderRole>'],
    Rules: [{ ResourceType: 'index', Resource: ['index/kfek-x/logs-*'], Permission: ['aoss:ReadDocument'] }],
  },
];

const PLAN: CollectionPlan = {
  name: 'kfek-x',
  type: 'TIMESERIES',
  group: {
    name: 'kfek-x-group',
    generation: 'NEXT',
    minIndexingOcu: 0,
    maxIndexingOcu: 2,
    minSearchOcu: 0,
    maxSearchOcu: 2,
  },
  policies: [
    { type: 'encryption', name: 'kfek-x-enc', document: { Rules: [], AWSOwnedKey: true } },
    { type: 'network', name: 'kfek-x-net', document: NETWORK },
    { type: 'data', name: 'kfek-x-acc', document: DATA },
    { type: 'lifecycle', name: 'kfek-x-life' },
  ],
  access: [],
};

describe('serverlessNamesOf', () => {
  test('lists the collection and its encryption, network and data access policies, nothing else', () => {
    // WHEN
    const names = serverlessNamesOf(PLAN);

    // THEN
    expect(names).toEqual([
      { kind: 'collection', name: 'kfek-x' },
      { kind: 'encryption', name: 'kfek-x-enc' },
      { kind: 'network', name: 'kfek-x-net' },
      { kind: 'data', name: 'kfek-x-acc' },
    ]);
  });
});

describe('heldDifferences', () => {
  test('finds none in a collection of the same type and group, or whose group is not known', () => {
    expect(
      heldDifferences(
        { kind: 'collection', name: 'kfek-x' },
        { type: 'TIMESERIES', group: 'kfek-x-group' },
        PLAN,
      ),
    ).toEqual([]);
    expect(heldDifferences({ kind: 'collection', name: 'kfek-x' }, { type: 'TIMESERIES' }, PLAN)).toEqual([]);
  });

  test('names the type and the group of a collection that differs in them', () => {
    // WHEN
    const diff = heldDifferences(
      { kind: 'collection', name: 'kfek-x' },
      { type: 'SEARCH', group: 'theirs' },
      PLAN,
    );

    // THEN
    expect(diff).toEqual([
      "its type is SEARCH, kfek's is TIMESERIES",
      "it is in collection group theirs, kfek's is kfek-x-group",
    ]);
  });

  test('finds none in a security policy written with other key and list order', () => {
    // GIVEN
    const held = [
      { AllowFromPublic: true, Rules: [{ Resource: ['collection/kfek-x'], ResourceType: 'collection' }] },
    ];

    // THEN
    expect(heldDifferences({ kind: 'network', name: 'kfek-x-net' }, held, PLAN)).toEqual([]);
  });

  test('says the rules differ when a security policy allows something else', () => {
    const held = [
      { Rules: [{ ResourceType: 'collection', Resource: ['collection/*'] }], AllowFromPublic: true },
    ];
    expect(heldDifferences({ kind: 'network', name: 'kfek-x-net' }, held, PLAN)).toEqual([
      'its rules are not the ones kfek renders for it',
    ]);
    expect(heldDifferences({ kind: 'encryption', name: 'kfek-x-enc' }, 'not json', PLAN)).toHaveLength(1);
  });

  test('judges a data access policy by its rules: principals, descriptions and the order of statements and permissions do not count', () => {
    // GIVEN the account names the roles by ARN and lists the statements the other way round
    const held = [...DATA].reverse().map((s) => ({
      Description: 'copied',
      Principal: ['arn:aws:iam::123456789012:role/anyone'],
      Rules: s.Rules.map((r) => ({ ...r, Permission: [...r.Permission].reverse() })),
    }));

    // THEN
    expect(heldDifferences({ kind: 'data', name: 'kfek-x-acc' }, held, PLAN)).toEqual([]);
  });

  test('says the rules differ when a data access policy grants other permissions', () => {
    // GIVEN
    const held = DATA.map((s) => ({ ...s, Rules: s.Rules.map((r) => ({ ...r, Permission: ['aoss:*'] })) }));

    // THEN
    expect(heldDifferences({ kind: 'data', name: 'kfek-x-acc' }, held, PLAN)).toEqual([
      'its rules are not the ones kfek renders for it',
    ]);
  });
});
