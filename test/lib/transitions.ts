/**
 * The realistic changes to a deployed profile that test/lib/transitions.test.ts plans for every shipped profile
 * they apply to, with what each costs in data (the docs/deploy.md table's last column, held to these words).
 */

import { PIPES_SAFE_BATCH_SIZE } from '../../core/contracts/aws-limits';
import { deploysDomain } from '../helpers/app';

/** A cdk.json profile object. */
export type Profile = Record<string, unknown>;

export interface Transition {
  /** The docs table's first column. */
  readonly change: string;
  /** What the change costs in data, as the docs table says it. */
  readonly data: string;
  readonly appliesTo: (profile: Profile) => boolean;
  /**
   * The deployed starting point made from the shipped profile.
   * @default - the shipped profile itself
   */
  readonly from?: (profile: Profile) => Profile;
  readonly to: (profile: Profile) => Profile;
}

const clone = (p: Profile): Profile => structuredClone(p);
/** The object at `key` of `p`, created when missing. */
function section(p: Profile, key: string): Profile {
  const existing = p[key];
  if (typeof existing === 'object' && existing !== null) return existing as Profile;
  const created: Profile = {};
  p[key] = created;
  return created;
}
const edit =
  (change: (p: Profile) => void) =>
  (profile: Profile): Profile => {
    const p = clone(profile);
    change(p);
    return p;
  };
const transport = (p: Profile): string => (p.transport as string | undefined) ?? 'lambda';
const deliveryMode = (p: Profile): string =>
  (section(clone(p), 'delivery').mode as string | undefined) ?? 'firehose';
const crossAccount = (p: Profile): boolean => section(clone(p), 'sources').accounts !== undefined;
const streamMode = (p: Profile, which: 'raw' | 'events'): string =>
  (section(section(clone(p), 'streams'), which).mode as string | undefined) ?? 'PROVISIONED';
const always = (): boolean => true;
const onDomain = (p: Profile): boolean => deploysDomain(p);

const CENTRAL = { account: '111122223333', region: 'eu-west-1' };

export const TRANSITIONS: readonly Transition[] = [
  {
    change: 'Add a log group (created by kfek, or an existing one)',
    data: 'nothing',
    appliesTo: always,
    to: edit((p) => {
      const sources = section(p, 'sources');
      sources.logGroups = [
        ...((sources.logGroups as unknown[] | undefined) ?? []),
        { name: '/kfek/day2/added', create: true },
        '/aws/lambda/existing-function',
      ];
    }),
  },
  {
    change: 'Enable the account-level subscription policy',
    data: 'nothing',
    appliesTo: (p) => section(section(clone(p), 'sources'), 'accountPolicy').enabled !== true,
    to: edit((p) => {
      section(section(p, 'sources'), 'accountPolicy').enabled = true;
    }),
  },
  {
    change: 'Pin the account and region (step 1 of the multi-account walk)',
    data: 'nothing',
    appliesTo: (p) => p.account === undefined,
    to: edit((p) => Object.assign(p, CENTRAL)),
  },
  {
    change: 'Add source accounts and regions after a single-account start',
    data: 'nothing',
    appliesTo: (p) => !crossAccount(p),
    from: edit((p) => Object.assign(p, CENTRAL)),
    to: edit((p) => {
      Object.assign(section(p, 'sources'), {
        accounts: ['222233334444'],
        regions: ['eu-west-1', 'us-east-1'],
        remote: { logGroups: ['/app/orders'] },
      });
    }),
  },
  {
    change: 'Add a source account and a region to a cross-account profile',
    data: 'nothing',
    appliesTo: crossAccount,
    to: edit((p) => {
      const sources = section(p, 'sources');
      sources.accounts = [...(sources.accounts as string[]), '444455556666'];
      sources.regions = [...(sources.regions as string[]), 'ap-southeast-2'];
    }),
  },
  {
    change: 'Switch the transport from `lambda` to `pipes`',
    data:
      "nothing lost: the new pipe starts at the raw stream's oldest record and transforms the retained window again; " +
      "each copy lands in its first copy's index (the period its raw record arrived in) and overwrites it by id; " +
      "the old mapping runs until CloudFormation's cleanup and its calls are answered as before",
    appliesTo: (p) => transport(p) === 'lambda',
    to: edit((p) => {
      p.transport = 'pipes';
      section(p, 'transform').batchSize = PIPES_SAFE_BATCH_SIZE;
      delete section(p, 'delivery').aggregation;
    }),
  },
  {
    change: 'Switch the transport from `pipes` to `lambda`',
    data:
      "nothing lost: the new event source mapping starts at the raw stream's oldest record and transforms the " +
      "retained window again; each copy lands in its first copy's index (the period its raw record arrived in) and " +
      "overwrites it by id; the old pipe runs until CloudFormation's cleanup and its calls are answered as before; " +
      "the pipe's error log is deleted",
    appliesTo: (p) => transport(p) === 'pipes',
    to: edit((p) => {
      p.transport = 'lambda';
    }),
  },
  {
    change: 'Switch the delivery from `firehose` to `direct`',
    data:
      "nothing lost: the indexer's mapping exists before CloudFormation's cleanup deletes the delivery stream, and " +
      "it starts at the events stream's oldest record, so what Firehose still held is indexed again into its first " +
      "copy's index under the same id; Firehose's error log is deleted",
    appliesTo: (p) => deliveryMode(p) === 'firehose',
    to: edit((p) => {
      section(p, 'delivery').mode = 'direct';
    }),
  },
  {
    change: 'Switch the delivery from `direct` to `firehose`',
    data:
      'nothing lost while the indexer keeps up: the delivery stream reads from its creation on, and the indexer ' +
      "keeps its mapping and its writer access until CloudFormation's cleanup; the indexer's log is deleted",
    appliesTo: (p) => deliveryMode(p) === 'direct' && onDomain(p),
    to: edit((p) => {
      section(p, 'delivery').mode = 'firehose';
    }),
  },
  {
    change: 'Upgrade the engine (`openSearch.engineVersion`)',
    data: 'nothing: an in-place blue/green upgrade (`EnableVersionUpgrade`)',
    appliesTo: onDomain,
    to: edit((p) => {
      section(p, 'openSearch').engineVersion = '3.1';
    }),
  },
  {
    change: 'Change a provisioned stream’s shard count',
    data: 'nothing (Kinesis reshards in place)',
    appliesTo: (p) => streamMode(p, 'raw') === 'PROVISIONED',
    to: edit((p) => {
      const streams = section(p, 'streams');
      section(streams, 'raw').shardCount = 2;
      section(streams, 'events').shardCount = 2;
    }),
  },
  {
    change: 'Lower the streams’ retention (`streams.*.retentionHours`)',
    data:
      'what a reader has not read yet and is older than the new retention is trimmed: `kfek doctor` fails when the ' +
      'readers lag more than that (`streams-retention`, from their IteratorAge)',
    appliesTo: (p) => Number(section(section(clone(p), 'streams'), 'raw').retentionHours ?? 24) > 24,
    to: edit((p) => {
      const streams = section(p, 'streams');
      section(streams, 'raw').retentionHours = 24;
      section(streams, 'events').retentionHours = 24;
    }),
  },
  {
    change: 'Switch the streams between provisioned and on-demand',
    data: 'nothing (Kinesis switches the mode in place)',
    appliesTo: always,
    to: edit((p) => {
      const streams = section(p, 'streams');
      for (const which of ['raw', 'events'] as const) {
        const s = section(streams, which);
        s.mode = streamMode(p, which) === 'PROVISIONED' ? 'ON_DEMAND' : 'PROVISIONED';
        s.shardCount = 1;
      }
    }),
  },
  {
    change: 'Turn aggregation off or on (`delivery.aggregation`)',
    data: 'nothing (Firehose reads both forms)',
    appliesTo: (p) => transport(p) === 'lambda',
    to: edit((p) => {
      const delivery = section(p, 'delivery');
      delivery.aggregation = delivery.aggregation === false;
    }),
  },
  {
    change: 'Change the Firehose buffer',
    data: 'nothing',
    appliesTo: always,
    to: edit((p) => {
      Object.assign(section(p, 'delivery'), { bufferingIntervalSeconds: 60, bufferingSizeMb: 10 });
    }),
  },
  {
    change: 'Change the transform’s memory',
    data: 'nothing',
    appliesTo: always,
    to: edit((p) => {
      section(p, 'transform').memoryMb = 2048;
    }),
  },
  {
    change: 'Turn the reconcile function on (`reconcile.enabled`)',
    data: 'nothing',
    appliesTo: (p) => section(clone(p), 'reconcile').enabled !== true && onDomain(p),
    to: edit((p) => {
      section(p, 'reconcile').enabled = true;
    }),
  },
  {
    change: 'Add an alarm e-mail',
    data: 'nothing',
    appliesTo: (p) => section(clone(p), 'alarms').email === undefined,
    to: edit((p) => {
      section(p, 'alarms').email = 'ops@example.com';
    }),
  },
  {
    change: 'Turn on zone awareness and dedicated master nodes',
    data: 'nothing: OpenSearch Service applies it with a blue/green deployment',
    appliesTo: (p) =>
      section(section(clone(p), 'openSearch'), 'zoneAwareness').enabled !== true && onDomain(p),
    to: edit((p) => {
      Object.assign(section(p, 'openSearch'), {
        dataNodeCount: 2,
        zoneAwareness: { enabled: true, availabilityZoneCount: 2 },
        dedicatedMasters: { enabled: true, instanceType: 'm7g.large.search', count: 3 },
      });
    }),
  },
];
