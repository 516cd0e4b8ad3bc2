import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import {
  buildDeadLetterObject,
  deadLetterKey,
  shardIdOf,
  type DeadLetterSource,
} from '../../../lambda/transform/dead-letter-object';
import {
  DeadLetterError,
  DeadLetterWriteError,
  S3DeadLetterStore,
} from '../../../lambda/transform/dead-letter';

const s3 = mockClient(S3Client);
const receivedAt = new Date('2026-11-23T23:59:59.999Z');
const source: DeadLetterSource = {
  eventId: 'shardId-000000000006:49590338271490256608559692538361571095921575989136588898',
  sequenceNumber: '49590338271490256608559692538361571095921575989136588898',
  shardId: 'shardId-000000000006',
  partitionKey: 'pk',
  streamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-raw',
  approximateArrivalTimestamp: 1_798_761_599.5, // 2026-12-31T23:59:59.500Z
};

beforeEach(() => s3.reset());

test('the shard id comes from the event id', () => {
  expect(shardIdOf(source.eventId)).toBe('shardId-000000000006');
  expect(shardIdOf('no-colon-here')).toBe('unknown-shard');
  expect(shardIdOf('')).toBe('unknown-shard');
});

test('keys are dated by arrival in UTC and identical for the same record', () => {
  const key = deadLetterKey('dl/', source, receivedAt);
  expect(key).toBe(
    'dl/year=2026/month=12/day=31/hour=23/kfek-raw/shardId-000000000006/49590338271490256608559692538361571095921575989136588898.json',
  );
  // Any other processing time gives the same key: the arrival time decides.
  expect(deadLetterKey('dl/', source, new Date('2031-06-15T12:00:00Z'))).toBe(key);
});

test('keys fall back to the processing time without a usable arrival time, and never contain odd characters', () => {
  const odd = {
    ...source,
    approximateArrivalTimestamp: Number.NaN,
    streamArn: '',
    sequenceNumber: '../../etc',
  };
  expect(deadLetterKey('dl/', odd, receivedAt)).toBe(
    'dl/year=2026/month=11/day=23/hour=23/unknown-stream/shardId-000000000006/.._.._etc.json',
  );
  expect(buildDeadLetterObject(odd, 'AA==', 'why', receivedAt).source.approximateArrival).toBeNull();
});

test('stores the object as JSON under its key and returns the key', async () => {
  s3.on(PutObjectCommand).resolves({});
  const store = new S3DeadLetterStore({
    client: new S3Client({ region: 'eu-west-1' }),
    bucket: 'b',
    prefix: 'dl/',
    now: () => receivedAt,
  });
  const key = await store.put(source, 'H4sI', 'broken gzip');
  expect(key).toBe(deadLetterKey('dl/', source, receivedAt));
  const input = s3.commandCalls(PutObjectCommand)[0].args[0].input;
  expect(input).toMatchObject({ Bucket: 'b', Key: key, ContentType: 'application/json' });
  expect(JSON.parse(input.Body as string)).toEqual(
    buildDeadLetterObject(source, 'H4sI', 'broken gzip', receivedAt),
  );
});

test('fails with a typed error naming the object when S3 refuses', async () => {
  s3.on(PutObjectCommand).rejects(Object.assign(new Error('Access Denied'), { name: 'AccessDenied' }));
  const store = new S3DeadLetterStore({
    client: new S3Client({ region: 'eu-west-1' }),
    bucket: 'b',
    prefix: 'dl/',
  });
  const failure = await store.put(source, 'x', 'r').catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(DeadLetterWriteError);
  expect(failure).toBeInstanceOf(DeadLetterError);
  expect((failure as DeadLetterWriteError).message).toMatch(
    /s3:\/\/b\/dl\/year=.*AccessDenied: Access Denied/,
  );
  expect((failure as DeadLetterWriteError).name).toBe('DeadLetterWriteError');
});
