/**
 * Issue 22, item 3: the same log line gives the same document text on every path. Numbers keep the form the app
 * wrote (`1.0`, `-0`, integers beyond 2^53, `1.50`, `1E2`) whether the event is plain, carries `extractedFields`
 * (every cross-account centralized event), has a key that collides with ours, overflows the field budget or is cut
 * to fit a record; and the Pipes path answers with objects that the Lambda runtime (JSON.stringify) writes back as
 * exactly the Kinesis path's text, plus `kfek.partitionKey`.
 *
 * The Pipes half keeps written numbers with `JSON.rawJSON`, which Node.js has from 21 (Lambda runs nodejs24.x, and
 * `npm run test:node24` runs this file there); on Node.js 20 it checks the same text with numbers in JavaScript's
 * form, which is what Node.js 20 can give.
 */
import fc from 'fast-check';
import { processPipesBatch, type PipesBatchDeps } from '../../../lambda/transform/pipes-batch';
import { toErrorDocument, transformRecord } from '../../../core/transform/transform';
import type { CloudWatchEnvelope } from '../../../core/transform/decode';
import type { SerializedDocument } from '../../../core/transform/types';
import { APP_FIELD_BUDGET } from '../../../core/contracts/field-budget';
import { MAX_KINESIS_RECORD_BYTES } from '../../../core/contracts/aws-limits';
import { encodeEnvelope, makeEnvelope, makeKinesisEvent } from '../../helpers/cloudwatch';
import { completeWrite } from '../../helpers/write-results';

const NUMBERS = '"n":1.0,"z":-0,"id":12345678901234567890,"p":1.50,"e":1E2,"i":7';
const LINE = `{"level":"INFO","message":"paid",${NUMBERS}}`;
const EXACT = typeof (JSON as unknown as { rawJSON?: unknown }).rawJSON === 'function';

function kinesisDocuments(envelope: CloudWatchEnvelope): SerializedDocument[] {
  const outcome = transformRecord(encodeEnvelope(envelope));
  if (outcome.kind !== 'data') throw new Error(`expected data, got ${outcome.kind}`);
  return [...outcome.documents];
}

/** The JSON text with every number in JavaScript's form, as JSON.stringify writes a parsed number. */
function jsNumbers(json: string): string {
  return json.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (token) =>
    token.startsWith('"') ? token : JSON.stringify(Number(token)),
  );
}

/** The Kinesis text as the Pipes path can give it on this Node.js (numbers as written from Node.js 21). */
function expectedPipesText(kinesis: SerializedDocument): string {
  return EXACT || kinesis.numbersAsWritten !== true ? kinesis.json : jsNumbers(kinesis.json);
}

/** What the Lambda runtime writes for each item of the Pipes answer, with `kfek.partitionKey` taken out again. */
async function pipesTexts(envelope: CloudWatchEnvelope): Promise<string[]> {
  const deps: PipesBatchDeps = {
    transform: transformRecord,
    errorDocument: toErrorDocument,
    writer: { write: (docs) => Promise.resolve(completeWrite(docs)) },
    deadLetters: { put: () => Promise.reject(new Error('no poison expected')) },
    deadLetterBucket: 'bucket',
    logger: { warn: () => undefined, error: () => undefined },
    remainingMs: () => 30_000,
  };
  const records = makeKinesisEvent([encodeEnvelope(envelope)]).Records.map(({ kinesis, ...rest }) => ({
    ...kinesis,
    ...rest,
  }));
  const outcome = await processPipesBatch(records, deps);
  // The runtime's own serialization of the answer, item by item.
  return outcome.items.map((item) => {
    const key = item.kfek.partitionKey;
    return JSON.stringify(item)
      .replace(`,"kfek":{"partitionKey":"${key}"}`, '')
      .replace(`,"partitionKey":"${key}"`, '');
  });
}

/**
 * One line through both paths: the Pipes text, and the Kinesis text it must equal. Pipes items are sized for the
 * pipe, so the Kinesis document is cut to the same size.
 */
async function bothPaths(line: string): Promise<{ pipes: string; expected: string }> {
  const envelope = makeEnvelope({}, [{ message: line }]);
  const [record] = makeKinesisEvent([encodeEnvelope(envelope)]).Records;
  const outcome = transformRecord(encodeEnvelope(envelope), {
    maxRecordBytes: MAX_KINESIS_RECORD_BYTES - 128,
    approximateArrivalTimestamp: record.kinesis.approximateArrivalTimestamp,
  });
  if (outcome.kind !== 'data') throw new Error(outcome.kind);
  const [pipes] = await pipesTexts(envelope);
  return { pipes, expected: expectedPipesText(outcome.documents[0]) };
}

function wide(n: number): string {
  return Array.from({ length: n }, (_, i) => `"k${i}":${i}.0`).join(',');
}

describe('one serialization on every path (issue 22, item 3)', () => {
  it('a plain event keeps every number as written', () => {
    const [doc] = kinesisDocuments(makeEnvelope({}, [{ message: LINE }]));
    expect(doc.json).toContain(`,"level":"INFO",${NUMBERS}}`);
    expect(doc.numbersAsWritten).toBe(true);
  });

  it('an event with extractedFields (cross-account centralization) writes the same app members', () => {
    const plain = kinesisDocuments(makeEnvelope({}, [{ message: LINE }]))[0].json;
    const envelope = makeEnvelope({}, [{ message: LINE }]);
    const centralized = {
      ...envelope,
      logEvents: [
        {
          ...envelope.logEvents[0],
          extractedFields: { '@aws.account': '210987654321', '@aws.region': 'eu-west-1' },
        },
      ],
    };
    const [doc] = kinesisDocuments(centralized);
    expect(doc.json).toContain(`"account":"210987654321","region":"eu-west-1"}`);
    expect(doc.json.replace(/"cloudwatch":\{[^{}]*\}/, '')).toBe(
      plain.replace(/"cloudwatch":\{[^{}]*\}/, ''),
    );
  });

  it('a key that collides with ours is moved aside with its number as written', () => {
    const [doc] = kinesisDocuments(
      makeEnvelope({}, [{ message: `{"message":"m","kfek":1.0,"_id":-0,${NUMBERS}}` }]),
    );
    expect(doc.json).toContain(`,${NUMBERS},"kfek":{"collisions":{"kfek":1.0,"_id":-0}}}`);
  });

  it('keys over the field budget are kept under kfek.overflow with their numbers as written', () => {
    const line = `{"message":"wide",${wide(APP_FIELD_BUDGET + 3)}}`;
    const [doc] = kinesisDocuments(makeEnvelope({}, [{ message: line }]));
    expect(doc.json).toContain(
      `"k${APP_FIELD_BUDGET - 1}":${APP_FIELD_BUDGET - 1}.0,"kfek":{"overflow":{"k${APP_FIELD_BUDGET}":`,
    );
    expect(doc.json).toContain(`"k${APP_FIELD_BUDGET + 2}":${APP_FIELD_BUDGET + 2}.0}}}`);
  });

  it('a document cut to fit a record keeps its app members as written', () => {
    const line = `{"message":"${'x'.repeat(MAX_KINESIS_RECORD_BYTES)}",${NUMBERS}}`;
    const [doc] = kinesisDocuments(makeEnvelope({}, [{ message: line }]));
    expect(doc.truncated).toBe(true);
    expect(doc.json).toContain(`,${NUMBERS},"kfek":{"truncated":true,`);
  });

  it('a pretty-printed line gives the document a compact line gives', () => {
    const pretty = JSON.stringify(JSON.parse(`{"a":{"b":[1,2]},"s":"caf\\u00e9"}`), null, 2).replace(
      '"b"',
      '"\\u0062"',
    );
    const [fromPretty] = kinesisDocuments(makeEnvelope({}, [{ message: pretty }]));
    const [fromCompact] = kinesisDocuments(makeEnvelope({}, [{ message: '{"a":{"b":[1,2]},"s":"café"}' }]));
    expect(fromPretty.json.replace(/"message":"(?:[^"\\]|\\.)*"/, '')).toBe(
      fromCompact.json.replace(/"message":"(?:[^"\\]|\\.)*"/, ''),
    );
  });

  it.each([
    ['a plain line', LINE],
    ['a collision', `{"message":"m","kfek":1.0,${NUMBERS}}`],
    ['an overflow', `{"message":"wide",${wide(APP_FIELD_BUDGET + 3)}}`],
    ['array-index keys', `{"b":1.0,"10":2,"2":-0,"message":"m"}`],
    ['a cut document', `{"message":"${'x'.repeat(MAX_KINESIS_RECORD_BYTES)}",${NUMBERS}}`],
    ['text', 'plain text 1.0'],
  ])('the Pipes answer, as the Lambda runtime writes it, is the Kinesis text (%s)', async (_, line) => {
    const { pipes, expected } = await bothPaths(line);
    expect(pipes).toBe(expected);
  });

  it('property: any JSON line gives the same text on the Kinesis and the Pipes path', async () => {
    const number = fc.constantFrom('1.0', '-0', '0.50', '12345678901234567890', '2.5', '7', '1E2');
    await fc.assert(
      fc.asyncProperty(
        fc.object({ maxDepth: 2 }),
        fc.array(number, { minLength: 1 }),
        fc.boolean(),
        async (object, numbers, pretty) => {
          let n = 0;
          const line = JSON.stringify(object, null, pretty ? 1 : 0).replace(
            /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g,
            (token) => (token.startsWith('"') ? token : numbers[n++ % numbers.length]),
          );
          const { pipes, expected } = await bothPaths(line);
          expect(pipes).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
