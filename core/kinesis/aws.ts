/**
 * The SDK side of {@link KinesisPort}: ListShards, GetShardIterator, GetRecords, PutRecords, and Kinesis' clock read
 * from its answers' `Date` header. Clients take the SDK's endpoint variables, so the same code runs against moto.
 */
import {
  DescribeStreamSummaryCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  KinesisClient,
  ListShardsCommand,
  PutRecordsCommand,
  type Shard,
} from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { KinesisPort, ShardInfo } from './ports';

/**
 * `StreamName`, plus `StreamARN` for an ARN. The API takes "either StreamARN or StreamName, or both"
 * (GetShardIterator reference); both keeps an ARN's account and region, and moto's GetShardIterator reads the name.
 */
export function streamParam(stream: string): { StreamARN?: string; StreamName: string } {
  if (!stream.startsWith('arn:')) return { StreamName: stream };
  return { StreamARN: stream, StreamName: stream.slice(stream.lastIndexOf('/') + 1) };
}

/** One shard of a ListShards page as the port describes it (none without an id). */
function shardOf(s: Shard): ShardInfo[] {
  if (s.ShardId === undefined) return [];
  return [
    {
      shardId: s.ShardId,
      ...(s.ParentShardId !== undefined ? { parentShardId: s.ParentShardId } : {}),
      ...(s.AdjacentParentShardId !== undefined ? { adjacentParentShardId: s.AdjacentParentShardId } : {}),
      closed: s.SequenceNumberRange?.EndingSequenceNumber !== undefined,
    },
  ];
}

export function kinesisPort(kinesis: KinesisClient): KinesisPort {
  let serverTime: Date | undefined;
  // Kinesis stamps records with its own clock; the events window compares those stamps with its start, so it keeps
  // Kinesis' time of day as well (whole seconds: an HTTP date is never later than the clock that wrote it).
  kinesis.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const headers = (result.response as { headers?: Record<string, string | undefined> }).headers;
      const date = headers?.date === undefined ? Number.NaN : Date.parse(headers.date);
      if (Number.isFinite(date)) serverTime = new Date(date);
      return result;
    },
    { step: 'deserialize', name: 'kfekKinesisServerTime', override: true },
  );
  return {
    async listShards(stream, nextToken) {
      // ListShards takes the stream or the token of the previous page, never both (ListShards reference).
      const out = await kinesis.send(
        new ListShardsCommand(nextToken === undefined ? streamParam(stream) : { NextToken: nextToken }),
      );
      return {
        shards: (out.Shards ?? []).flatMap(shardOf),
        ...(out.NextToken !== undefined ? { nextToken: out.NextToken } : {}),
      };
    },
    async iterator(stream, shardId, position) {
      const out = await kinesis.send(
        new GetShardIteratorCommand({
          ...streamParam(stream),
          ShardId: shardId,
          ShardIteratorType: position.type,
          ...(position.type === 'AT_TIMESTAMP'
            ? { Timestamp: position.timestamp }
            : { StartingSequenceNumber: position.sequenceNumber }),
        }),
      );
      return out.ShardIterator;
    },
    async readPage(stream, iterator, limit) {
      const out = await kinesis.send(
        new GetRecordsCommand({
          ShardIterator: iterator,
          Limit: limit,
          ...(stream.startsWith('arn:') ? { StreamARN: stream } : {}),
        }),
      );
      return {
        records: (out.Records ?? []).map((r) => ({
          data: r.Data ?? new Uint8Array(),
          partitionKey: r.PartitionKey ?? '',
          sequenceNumber: r.SequenceNumber ?? '',
          ...(r.ApproximateArrivalTimestamp !== undefined
            ? { arrivedAt: r.ApproximateArrivalTimestamp }
            : {}),
        })),
        ...(out.NextShardIterator !== undefined ? { next: out.NextShardIterator } : {}),
        ...(out.MillisBehindLatest !== undefined ? { millisBehindLatest: out.MillisBehindLatest } : {}),
      };
    },
    async putRecords(stream, records) {
      const out = await kinesis.send(
        new PutRecordsCommand({
          ...streamParam(stream),
          Records: records.map((r) => ({ Data: r.data, PartitionKey: r.partitionKey })),
        }),
      );
      return (out.Records ?? []).map((entry) => entry.ErrorCode);
    },
    serverTime: () => serverTime,
  };
}

/** The ARN of a stream given by name or ARN (DescribeStreamSummary): which stream it is in this account and region. */
export async function describeStreamArn(kinesis: KinesisClient, stream: string): Promise<string> {
  const out = await kinesis.send(new DescribeStreamSummaryCommand(streamParam(stream)));
  const arn = out.StreamDescriptionSummary?.StreamARN;
  if (arn === undefined) throw new Error(`DescribeStreamSummary of ${stream} answered no StreamARN`);
  return arn;
}

/** A Kinesis client at `endpoint` when given (moto), in `region`; the SDK's chain otherwise. */
export function createKinesisClient(target: {
  readonly region?: string;
  readonly endpoint?: string;
}): KinesisClient {
  return new KinesisClient({
    ...(target.region !== undefined ? { region: target.region } : {}),
    ...(target.endpoint !== undefined ? { endpoint: target.endpoint } : {}),
    // HTTP/1.1: moto refuses the Kinesis client's default HTTP/2 handler; AWS takes either.
    requestHandler: new NodeHttpHandler({ connectionTimeout: 5_000, requestTimeout: 60_000 }),
  });
}
