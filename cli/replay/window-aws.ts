/**
 * The AWS side of the events-window replay's reading port (ListShards, GetShardIterator, GetRecords), and Kinesis'
 * clock read from its answers' `Date` header. It puts with aws-ports.ts' `kinesisPort`, like every replay.
 */
import {
  GetRecordsCommand,
  GetShardIteratorCommand,
  type KinesisClient,
  ListShardsCommand,
} from '@aws-sdk/client-kinesis';
import { streamParam } from './aws-ports';
import type { StreamWindowPort } from './ports';

export function streamWindowPort(kinesis: KinesisClient): StreamWindowPort {
  let serverTime: Date | undefined;
  // Kinesis stamps records with its own clock; the replay compares those stamps with its start, so it keeps
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
        shards: (out.Shards ?? []).flatMap((s) =>
          s.ShardId === undefined
            ? []
            : [
                {
                  shardId: s.ShardId,
                  ...(s.ParentShardId !== undefined ? { parentShardId: s.ParentShardId } : {}),
                  ...(s.AdjacentParentShardId !== undefined
                    ? { adjacentParentShardId: s.AdjacentParentShardId }
                    : {}),
                  closed: s.SequenceNumberRange?.EndingSequenceNumber !== undefined,
                },
              ],
        ),
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
    serverTime: () => serverTime,
  };
}
