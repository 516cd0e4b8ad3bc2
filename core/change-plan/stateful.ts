/**
 * The resource types that hold data or state a new resource does not have: for each, what replacing or deleting one
 * loses, and how to keep it. One table, so a type cannot have a risk without its fix.
 */

/** What a stateful type loses with its resource, and how an operator keeps it. */
export interface StatefulType {
  /** What is at risk when a resource of the type is replaced or deleted, as one sentence. */
  readonly risk: string;
  /** How to keep what it holds across its replacement or deletion (`profile`: the kfek profile deployed). */
  readonly keep: (profile: string) => string;
}

export const STATEFUL_TYPES = {
  'AWS::Kinesis::Stream': {
    risk: 'The records on the stream (kept up to its retention period) that were not read yet are lost, and the stream gets a new ARN.',
    // kfek replay re-sends only objects that name the stream it resolves, so objects kept from the old stream must be
    // re-sent before the replacement (docs/operations.md, Replay).
    keep: (profile) =>
      'let the consumers drain it first (IteratorAge at 0, sources quiet) and re-send what kfek kept from it ' +
      `before the deploy (\`npx kfek replay --profile ${profile}\`): afterwards replay refuses objects that name the old stream`,
  },
  'AWS::OpenSearchService::Domain': {
    risk: 'Every index and document, the Dashboards objects and the security mappings are lost: the new domain starts empty.',
    keep: () =>
      'take a manual snapshot to an S3 repository first and restore it into the new domain (OpenSearch Service guide, "Creating index snapshots")',
  },
  'AWS::OpenSearchServerless::Collection': {
    risk: 'Every index and document of the collection is lost: the new collection starts empty (docs/serverless.md).',
    keep: (profile) =>
      `refill the new collection from CloudWatch Logs afterwards (\`npx kfek backfill --profile ${profile}\`), within the log groups' retention`,
  },
  'AWS::S3::Bucket': {
    risk: 'The objects in the bucket (records kept because they could not be delivered) are not in the new one, and CloudFormation cannot delete the old bucket while it holds objects.',
    keep: (profile) =>
      `re-send what it keeps first (\`npx kfek replay --profile ${profile}\`), or copy the objects over afterwards (\`aws s3 sync\`)`,
  },
  'AWS::KMS::Key': {
    risk: 'Data encrypted under the key (stream records, bucket objects, queue messages) can no longer be decrypted once the old key is deleted, 7 to 30 days later.',
    keep: () =>
      'set the profile\'s removalPolicy to "retain" so the old key stays; a key pending deletion is saved with `aws kms cancel-key-deletion`',
  },
  'AWS::Logs::LogGroup': {
    risk: 'The log events stored in the log group are lost.',
    keep: () =>
      'export its events first (`aws logs create-export-task`), or set the profile\'s removalPolicy to "retain"',
  },
  'AWS::KinesisFirehose::DeliveryStream': {
    risk: 'Records buffered in the delivery stream are lost, and a new delivery stream starts reading its source stream at its creation time: it never delivers what was already on the stream.',
    keep: () =>
      'deploy when it has caught up with its source stream (KinesisMillisBehindLatest near 0) and the sources are quiet: the new one never delivers records written before it exists',
  },
  'AWS::SQS::Queue': {
    risk: 'The messages in the queue are lost.',
    keep: (profile) =>
      `re-send its messages first (\`npx kfek replay --profile ${profile} --kind pipes-dlq\`)`,
  },
  'AWS::Logs::Destination': {
    risk: "Source accounts' subscription filters send to the destination's ARN: log events sent while it is missing are lost.",
    keep: () =>
      "redeploy the source stacks afterwards, so the source accounts' subscription filters send to the new destination",
  },
} as const satisfies Readonly<Record<string, StatefulType>>;

/** A resource type that holds data or state. */
export type StatefulTypeName = keyof typeof STATEFUL_TYPES;

export const isStateful = (type: string): type is StatefulTypeName => Object.hasOwn(STATEFUL_TYPES, type);

/** The data-at-risk sentence of a replaced resource; empty for a type without state. */
export function replacementRisk(type: string, oldRetained: boolean): string {
  if (!isStateful(type)) return '';
  const risk = STATEFUL_TYPES[type].risk;
  return oldRetained
    ? `${risk} (The old one is kept with its data, UpdateReplacePolicy Retain, but nothing uses it any more.)`
    : risk;
}

/** The data-at-risk sentence of a deleted resource; empty when it has no state or is retained. */
export function deletionRisk(type: string, retained: boolean): string {
  return retained || !isStateful(type) ? '' : STATEFUL_TYPES[type].risk;
}

/** How to keep what a resource of the type holds; a generic answer for a type without an entry. */
export function keepData(type: string, profile: string): string {
  return isStateful(type) ? STATEFUL_TYPES[type].keep(profile) : 'save what it holds first';
}
