/**
 * Tests of the transform against moto: client settings, the handlers' environment, and reading a whole stream
 * back, shard by shard from TRIM_HORIZON.
 */
import {
  CreateStreamCommand,
  DescribeStreamCommand,
  DescribeStreamSummaryCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type KinesisClient,
  PutRecordsCommand,
  type _Record as KinesisRecord,
} from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { TransformServiceName, transformEnvironment } from '../../core/contracts/transform-env';

/** Creates a stream of `shardCount` shards (moto makes it active at once) and answers its ARN. */
export async function createStream(kinesis: KinesisClient, name: string, shardCount = 1): Promise<string> {
  await kinesis.send(new CreateStreamCommand({ StreamName: name, ShardCount: shardCount }));
  const out = await kinesis.send(new DescribeStreamSummaryCommand({ StreamName: name }));
  return out.StreamDescriptionSummary?.StreamARN as string;
}

/** Puts each string as one record, in one PutRecords call, all with partition key `pk`. */
export async function putStrings(
  kinesis: KinesisClient,
  streamArn: string,
  data: readonly string[],
): Promise<void> {
  await kinesis.send(
    new PutRecordsCommand({
      StreamARN: streamArn,
      Records: data.map((d) => ({ Data: Buffer.from(d), PartitionKey: 'pk' })),
    }),
  );
}

/** Every record of every shard, each with its shard id, in shard then sequence order. */
export async function readStreamRecords(
  kinesis: KinesisClient,
  streamName: string,
): Promise<Array<KinesisRecord & { shardId: string }>> {
  const { StreamDescription } = await kinesis.send(new DescribeStreamCommand({ StreamName: streamName }));
  const out: Array<KinesisRecord & { shardId: string }> = [];
  for (const shard of StreamDescription!.Shards!) {
    let { ShardIterator: iterator } = await kinesis.send(
      new GetShardIteratorCommand({
        StreamName: streamName,
        ShardId: shard.ShardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    while (iterator) {
      const page = await kinesis.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 10_000 }));
      out.push(...(page.Records ?? []).map((r) => ({ ...r, shardId: shard.ShardId! })));
      if ((page.Records ?? []).length === 0) break;
      iterator = page.NextShardIterator;
    }
  }
  return out;
}

/** SDK client settings for moto: its endpoint, dummy credentials, HTTP/1.1 (moto rejects HTTP/2). */
export function motoClientConfig(
  endpoint: string,
  region: string,
): {
  region: string;
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  requestHandler: NodeHttpHandler;
} {
  return {
    region,
    endpoint,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    requestHandler: new NodeHttpHandler(),
  };
}

/**
 * The environment a transform entry point reads at load, pointed at `endpoint`, with metrics and logs quiet. The
 * transform's own variables come from their one writer, `transformEnvironment`.
 */
export function transformHandlerEnv(props: {
  readonly endpoint: string;
  readonly region: string;
  readonly eventsStreamArn: string;
  readonly deadLetterBucket: string;
  /** @default TransformServiceName.kinesis */
  readonly serviceName?: TransformServiceName;
  /** @default - unset: the reader's default (aggregated) */
  readonly aggregation?: boolean;
}): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: props.endpoint,
    AWS_REGION: props.region,
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    ...transformEnvironment({
      serviceName: props.serviceName ?? TransformServiceName.kinesis,
      eventsStreamArn: props.eventsStreamArn,
      deadLetterBucket: props.deadLetterBucket,
      ...(props.aggregation === undefined ? {} : { aggregation: props.aggregation }),
    }),
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  };
}
