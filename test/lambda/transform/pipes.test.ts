/**
 * The EventBridge Pipes enrichment over the same fixtures as the Kinesis handler, in the flat record shape
 * Pipes delivers (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-kinesis.html).
 */
import type { Context } from 'aws-lambda';
import type { LogDocument } from '../../../lambda/transform/types';
import { encodeEnvelope, makeEnvelope, makeKinesisEvent, makeLogEvents } from '../../helpers/cloudwatch';
import type { PipesKinesisRecord } from '../../../lambda/transform/pipes';

type PipesModule = typeof import('../../../lambda/transform/pipes');
let pipes: PipesModule;
const savedEnv = { ...process.env };

/** The Lambda event source mapping records of the shared factory, flattened the way Pipes sends them. */
function pipesRecords(datas: string[]): PipesKinesisRecord[] {
  return makeKinesisEvent(datas).Records.map(({ kinesis, ...rest }) => ({ ...kinesis, ...rest }));
}

const context = { awsRequestId: 'req-1', functionName: 'kfek-pipes-enrichment' } as unknown as Context;

beforeAll(async () => {
  process.env.POWERTOOLS_DEV = 'true';
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  pipes = await import('../../../lambda/transform/pipes');
});

afterAll(() => {
  process.env = savedEnv;
});

let consoleLog: jest.SpyInstance;
let consoleError: jest.SpyInstance;
beforeEach(() => {
  consoleLog = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

test('reads the record shape of the AWS documentation example (flat, data at the top level)', async () => {
  // GIVEN: the documented example batch, with its data replaced by a real subscription envelope.
  const data = encodeEnvelope(makeEnvelope({ logEvents: makeLogEvents(2) }));
  const documented = [
    {
      kinesisSchemaVersion: '1.0',
      partitionKey: '1',
      sequenceNumber: '49590338271490256608559692538361571095921575989136588898',
      data,
      approximateArrivalTimestamp: 1545084650.987,
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: 'shardId-000000000006:49590338271490256608559692538361571095921575989136588898',
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: 'arn:aws:iam::123456789012:role/lambda-role',
      awsRegion: 'us-east-2',
      eventSourceARN: 'arn:aws:kinesis:us-east-2:123456789012:stream/lambda-stream',
    },
  ];
  // WHEN
  const documents = await pipes.handler(documented, context);
  // THEN
  expect(documents.map((d) => d.cloudwatch.id)).toEqual(makeLogEvents(2).map((e) => e.id));
  // The shared factory's records, flattened, have the same keys as the documented example.
  expect(Object.keys(pipesRecords([data])[0]).sort()).toEqual(Object.keys(documented[0]).sort());
});

test('returns the flat array of documents in order: events, nothing for control, an error document for poison', async () => {
  // GIVEN
  const first = makeLogEvents(3, (i) => JSON.stringify({ level: 'WARN', message: `disk ${i}`, disk: i }));
  const second = makeLogEvents(2).map((e, i) => ({ ...e, id: `7${i}`.padStart(56, '7') }));
  const poisonData = Buffer.from('{"not":"an envelope"').toString('base64');
  const input = pipesRecords([
    encodeEnvelope(makeEnvelope({ logEvents: first })),
    encodeEnvelope(makeEnvelope({ messageType: 'CONTROL_MESSAGE', logGroup: '', logStream: '' })),
    poisonData,
    encodeEnvelope(makeEnvelope({ logEvents: second, logGroup: '/aws/ecs/web' }), { gzip: false }),
  ]);
  // WHEN
  const documents = await pipes.handler(input, context);
  // THEN
  expect(documents).toHaveLength(6);
  expect(documents.slice(0, 3).map((d) => d.cloudwatch.id)).toEqual(first.map((e) => e.id));
  expect(documents[0]).toMatchObject({ message: 'disk 0', disk: 0, level: 'WARN' });
  expect(documents[3].kfek?.error).toEqual({ reason: expect.any(String), data: poisonData });
  expect(documents[3].kfek?.error?.reason).not.toBe('');
  expect(documents[3]['@timestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(documents.slice(4).map((d) => d.cloudwatch)).toEqual(
    second.map((e): unknown => expect.objectContaining({ id: e.id, logGroup: '/aws/ecs/web' })),
  );
  // Plain objects, not strings: Pipes forwards each array item to the target as its own event.
  expect(documents.every((d) => typeof d === 'object')).toBe(true);

  const emf = consoleLog.mock.calls
    .map(([line]: [unknown]) => line)
    .filter((line): line is string => typeof line === 'string' && line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(emf).toHaveLength(1);
  expect(emf[0]).toMatchObject({ RecordsIn: 4, EventsOut: 6, ControlMessages: 1, PoisonRecords: 1 });
});

test('produces the same documents as the Kinesis path for the same records', () => {
  // The shared core is the contract: same input, same documents, whichever entry point.
  const envelope = makeEnvelope({ logEvents: makeLogEvents(5, (i) => `plain text ${i}\n`) });
  const { documents } = pipes.transformPipesBatch(pipesRecords([encodeEnvelope(envelope)]));
  expect(documents.map((d) => d.message)).toEqual([0, 1, 2, 3, 4].map((i) => `plain text ${i}`));
});

test.each([
  ['null', null],
  ['a string', 'hello'],
  ['a record without data', [{ sequenceNumber: '1', partitionKey: 'p' }]],
  ['a record with numeric data', [{ data: 42 }]],
  ['an array with null', [null]],
])('never throws for %s: it returns an error document', async (_label, input) => {
  const documents: LogDocument[] = await pipes.handler(input, context);
  expect(documents).toHaveLength(1);
  expect(documents[0].kfek?.error?.reason).toEqual(expect.any(String));
});

test('an empty batch yields no documents', async () => {
  await expect(pipes.handler([], context)).resolves.toEqual([]);
});

test('flags and logs an answer larger than a Kinesis target accepts (500 items)', async () => {
  // GIVEN: one envelope with 501 events.
  const input = pipesRecords([encodeEnvelope(makeEnvelope({ logEvents: makeLogEvents(501) }))]);
  // WHEN
  const outcome = pipes.transformPipesBatch(input);
  const documents = await pipes.handler(input, context);
  // THEN
  expect(outcome.overTargetLimit).toBe(true);
  expect(pipes.transformPipesBatch(input.slice(0, 0)).overTargetLimit).toBe(false);
  expect(documents).toHaveLength(501);
  expect(consoleError.mock.calls.flat().join(' ')).toContain('lower the pipe batch size');
});
