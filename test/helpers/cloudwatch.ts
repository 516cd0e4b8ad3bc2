/**
 * Shared test factories for CloudWatch Logs subscription payloads and the Kinesis events that carry
 * them: build an envelope, gzip+base64 it in one call, wrap records in a realistic Kinesis event.
 */
import { gzipSync } from 'node:zlib';
import type { KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import type { CloudWatchEnvelope, CloudWatchLogEvent } from '../../core/transform/decode';

export type { CloudWatchEnvelope, CloudWatchLogEvent } from '../../core/transform/decode';

/** 2026-11-23T09:00:00.000Z: fixed so snapshots are stable. */
export const BASE_TIMESTAMP = Date.UTC(2026, 10, 23, 9, 0, 0, 0);

/** The first 56-digit event id, as CloudWatch Logs writes them; later ids count up from it. */
const BASE_EVENT_ID = 38480917865042697267627490045603633139480491071049695232n;

export const DEFAULT_LOG_GROUP = '/aws/lambda/kfek-test';
export const DEFAULT_LOG_STREAM = '2026/11/23/[$LATEST]0123456789abcdef0123456789abcdef';
export const DEFAULT_OWNER = '123456789012';

/** One log event per entry: realistic 56-digit ids counting up, timestamps one millisecond apart. */
export function makeLogEvents(
  n: number,
  makeMessage: (i: number) => string = (i) => `log line ${i}`,
): CloudWatchLogEvent[] {
  const events: CloudWatchLogEvent[] = [];
  for (let i = 0; i < n; i++) {
    events.push({
      id: (BASE_EVENT_ID + BigInt(i)).toString(),
      timestamp: BASE_TIMESTAMP + i,
      message: makeMessage(i),
    });
  }
  return events;
}

/**
 * A DATA_MESSAGE envelope. `events` entries are completed with the defaults of `makeLogEvents`
 * (position-based id, timestamp and message); without `events`, `overrides.logEvents` or one
 * default event is used.
 */
export function makeEnvelope(
  overrides: Partial<CloudWatchEnvelope> = {},
  events?: ReadonlyArray<Partial<{ id: string; timestamp: number; message: string }>>,
): CloudWatchEnvelope {
  const logEvents =
    events !== undefined
      ? events.map((partial, i) => ({ ...makeLogEvents(i + 1)[i], ...partial }))
      : (overrides.logEvents ?? makeLogEvents(1));
  return {
    messageType: 'DATA_MESSAGE',
    owner: DEFAULT_OWNER,
    logGroup: DEFAULT_LOG_GROUP,
    logStream: DEFAULT_LOG_STREAM,
    subscriptionFilters: ['kfek-test-filter'],
    ...overrides,
    logEvents,
  };
}

/** Serializes an envelope (or takes the text as given), gzips it unless told not to, and base64-encodes it. */
export function encodeEnvelope(envelope: object | string, opts: { readonly gzip?: boolean } = {}): string {
  const text = typeof envelope === 'string' ? envelope : JSON.stringify(envelope);
  const bytes = Buffer.from(text, 'utf8');
  return ((opts.gzip ?? true) ? gzipSync(bytes) : bytes).toString('base64');
}

/** Options for `makeKinesisEvent`. */
export interface KinesisEventOptions {
  /** @default arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-raw */
  readonly streamArn?: string;
  /** @default shardId-000000000000 */
  readonly shardId?: string;
  /** Sequence number of the first record; later ones count up by 2^64-ish steps as Kinesis' do. @default a 56-digit number */
  readonly firstSequenceNumber?: bigint;
  /** @default 'a hash-like 32-hex key' */
  readonly partitionKey?: string;
  /** Seconds since the epoch. @default BASE_TIMESTAMP / 1000 */
  readonly approximateArrivalTimestamp?: number;
}

/** Kinesis sequence numbers are 56-digit decimal strings that grow by large steps. */
const BASE_SEQUENCE_NUMBER = 49635052289529725553291405521504870233219489715332317186n;
const SEQUENCE_STEP = 2n ** 64n + 7n;

/** A Kinesis event source mapping event with one record per data string, in order. */
export function makeKinesisEvent(
  datas: readonly string[],
  opts: KinesisEventOptions = {},
): KinesisStreamEvent {
  const streamArn = opts.streamArn ?? 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-raw';
  const region = streamArn.split(':')[3] ?? 'eu-west-1';
  const account = streamArn.split(':')[4] ?? '123456789012';
  const shardId = opts.shardId ?? 'shardId-000000000000';
  const first = opts.firstSequenceNumber ?? BASE_SEQUENCE_NUMBER;
  const arrival = opts.approximateArrivalTimestamp ?? BASE_TIMESTAMP / 1000;
  const Records: KinesisStreamRecord[] = datas.map((data, i) => {
    const sequenceNumber = (first + BigInt(i) * SEQUENCE_STEP).toString();
    return {
      kinesis: {
        kinesisSchemaVersion: '1.0',
        partitionKey: opts.partitionKey ?? 'da10bf66b1f54bff5d96eae99149ad1f',
        sequenceNumber,
        data,
        approximateArrivalTimestamp: arrival + i / 1000,
      },
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: `${shardId}:${sequenceNumber}`,
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: `arn:aws:iam::${account}:role/kfek-transform-role`,
      awsRegion: region,
      eventSourceARN: streamArn,
    };
  });
  return { Records };
}
