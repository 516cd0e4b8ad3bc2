import {
  CreateLogGroupCommand,
  PutSubscriptionFilterCommand,
  ResourceAlreadyExistsException,
} from '@aws-sdk/client-cloudwatch-logs';
import {
  CreateStreamCommand,
  DescribeStreamSummaryCommand,
  ResourceInUseException,
} from '@aws-sdk/client-kinesis';
import {
  BucketAlreadyOwnedByYou,
  type BucketLocationConstraint,
  CreateBucketCommand,
} from '@aws-sdk/client-s3';
import type { LocalAwsClients } from './aws-clients';
import { LocalRunError } from './errors';
import { sleep } from './shard-reader';
import type { LocalPipelineSpec, LocalStream } from './spec';

/** What {@link createLocalResources} made. */
export interface LocalResources {
  readonly rawStreamArn: string;
  readonly eventsStreamArn: string;
  readonly deadLetterBucket: string;
  readonly logGroupNames: readonly string[];
}

/**
 * Creates in moto what the Pipeline, Search and Sources stacks create in AWS: both streams, the dead-letter
 * bucket, the log groups and one subscription filter per log group to the raw stream. Idempotent, so a second
 * call against the same moto is harmless.
 */
export async function createLocalResources(
  clients: LocalAwsClients,
  spec: LocalPipelineSpec,
): Promise<LocalResources> {
  const [rawStreamArn, eventsStreamArn] = await Promise.all([
    createStream(clients, spec.rawStream),
    createStream(clients, spec.eventsStream),
  ]);
  try {
    await clients.s3.send(
      new CreateBucketCommand({
        Bucket: spec.deadLetterBucket,
        // us-east-1 is the one region that refuses an explicit location constraint.
        CreateBucketConfiguration:
          spec.region === 'us-east-1'
            ? undefined
            : { LocationConstraint: spec.region as BucketLocationConstraint },
      }),
    );
  } catch (error) {
    if (!(error instanceof BucketAlreadyOwnedByYou)) throw error;
  }
  for (const group of spec.logGroups) {
    try {
      await clients.logs.send(new CreateLogGroupCommand({ logGroupName: group.name }));
    } catch (error) {
      if (!(error instanceof ResourceAlreadyExistsException)) throw error;
    }
    await clients.logs.send(
      new PutSubscriptionFilterCommand({
        logGroupName: group.name,
        filterName: group.filterName,
        filterPattern: group.filterPattern,
        destinationArn: rawStreamArn,
        // moto does not check the role; in AWS it is the narrowly trusted role the Sources stack creates.
        roleArn: `arn:aws:iam::${spec.accountId}:role/kfek-local-cwl-to-kinesis`,
      }),
    );
  }
  return {
    rawStreamArn,
    eventsStreamArn,
    deadLetterBucket: spec.deadLetterBucket,
    logGroupNames: spec.logGroups.map((g) => g.name),
  };
}

async function createStream(clients: LocalAwsClients, stream: LocalStream): Promise<string> {
  try {
    await clients.kinesis.send(
      new CreateStreamCommand({
        StreamName: stream.name,
        ShardCount: stream.shardCount,
        StreamModeDetails: { StreamMode: 'PROVISIONED' },
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  // Kinesis answers CREATING for a while (moto: at once ACTIVE); PutRecords before ACTIVE fails.
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const out = await clients.kinesis.send(new DescribeStreamSummaryCommand({ StreamName: stream.name }));
    const summary = out.StreamDescriptionSummary;
    if (summary?.StreamStatus === 'ACTIVE' && summary.StreamARN !== undefined) return summary.StreamARN;
    await sleep(100);
  }
  throw new LocalRunError(`stream ${stream.name} did not become ACTIVE within 5 s`);
}
