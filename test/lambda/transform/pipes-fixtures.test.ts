/**
 * Both entry points over every real-world payload in test/fixtures: the Kinesis handler's batch logic (with a
 * capturing writer and dead-letter store) and the Pipes enrichment must turn the same records into the same
 * documents, and the same poison records into the same reasons.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KinesisStreamEvent } from 'aws-lambda';
import { processKinesisBatch } from '../../../lambda/transform/kinesis-batch';
import { processPipesBatch } from '../../../lambda/transform/pipes-batch';
import { toErrorDocument, transformRecord } from '../../../core/transform/transform';
import type { LogDocument, SerializedDocument } from '../../../core/transform/types';
import { encodeEnvelope, makeEnvelope, makeKinesisEvent } from '../../helpers/cloudwatch';
import { completeWrite } from '../../helpers/write-results';

const FIXTURES = join(__dirname, '../../fixtures');

/** The record data (base64) a fixture stands for, whatever its format. */
function recordDatas(name: string): string[] {
  const text = readFileSync(join(FIXTURES, name), 'utf8');
  if (name.endsWith('.jsonl')) {
    const rows = text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { message: string });
    return [
      encodeEnvelope(
        makeEnvelope(
          {},
          rows.map((r) => ({ message: r.message })),
        ),
      ),
    ];
  }
  if (name.endsWith('.ndjson')) return [encodeEnvelope(text)];
  const json = JSON.parse(text) as {
    Records?: Array<{ kinesis?: { data?: string } }>;
    awslogs?: { data?: string };
    data?: string;
  };
  if (Array.isArray(json.Records))
    return json.Records.flatMap((r) => (r.kinesis?.data ? [r.kinesis.data] : []));
  if (json.awslogs?.data) return [json.awslogs.data];
  if (typeof json.data === 'string') return [json.data];
  return [encodeEnvelope(json)];
}

const fixtures = readdirSync(FIXTURES).filter((n) => /\.(json|jsonl|ndjson)$/.test(n));

test('there are fixtures to compare', () => {
  expect(fixtures.length).toBeGreaterThan(10);
});

test.each(fixtures)('%s: the Kinesis handler and the Pipes enrichment agree', async (name) => {
  // GIVEN
  const datas = recordDatas(name);
  const event: KinesisStreamEvent = makeKinesisEvent(datas);
  const written: SerializedDocument[] = [];
  const deadLettered = new Map<string, string>(); // sequence number -> reason

  // WHEN
  const outcome = await processKinesisBatch(event, () => 60_000, {
    transform: (data, options) => transformRecord(data, options),
    writer: {
      write: (docs) => {
        written.push(...docs);
        return Promise.resolve(completeWrite(docs));
      },
    },
    deadLetters: {
      put: (source, _data, reason) => {
        deadLettered.set(source.sequenceNumber, reason);
        return Promise.resolve('key');
      },
    },
    logger: { warn: () => undefined, error: () => undefined },
  });
  const pipes = await processPipesBatch(
    event.Records.map(({ kinesis, ...rest }) => ({ ...kinesis, ...rest })),
    {
      transform: transformRecord,
      errorDocument: toErrorDocument,
      writer: {
        write: () => Promise.reject(new Error('no fixture is larger than one pipe answer')),
      },
      deadLetters: { put: () => Promise.resolve('key') },
      deadLetterBucket: 'bucket',
      logger: { warn: () => undefined, error: () => undefined },
      remainingMs: () => 60_000,
      now: () => new Date('2026-11-23T09:00:00.000Z'),
    },
  );

  // THEN: Pipes returns exactly the documents the handler wrote, with an error document where the handler
  // dead-lettered a record, in record order.
  const expected: unknown[] = [];
  let next = 0;
  for (const [index, record] of event.Records.entries()) {
    const reason = deadLettered.get(record.kinesis.sequenceNumber);
    if (reason !== undefined) {
      expected.push({ error: reason, data: datas[index] });
      continue;
    }
    const outcomeOfRecord = transformRecord(record.kinesis.data);
    const count = outcomeOfRecord.kind === 'data' ? outcomeOfRecord.documents.length : 0;
    expected.push(...written.slice(next, next + count).map((d) => JSON.parse(d.json) as LogDocument));
    next += count;
  }
  expect(next).toBe(written.length);
  // Pipes items also carry their partition key (the pipe's target reads it); the documents are otherwise equal. They
  // are compared as the Lambda runtime serializes them (on Node.js 21+ an item may hold JSON.rawJSON numbers).
  const answered = JSON.parse(JSON.stringify(pipes.items)) as typeof pipes.items;
  const actual = answered.map(({ kfek: { partitionKey: _key, ...kfek }, ...doc }) =>
    kfek.error
      ? { error: kfek.error.reason, data: kfek.error.data }
      : Object.keys(kfek).length > 0
        ? { ...doc, kfek }
        : doc,
  );
  expect(actual).toEqual(expected);
  expect(outcome.response.batchItemFailures).toEqual([]);
  expect(pipes.counters).toMatchObject({
    RecordsIn: outcome.counters.RecordsIn,
    ControlMessages: outcome.counters.ControlMessages,
    PoisonRecords: outcome.counters.PoisonRecords,
    TruncatedDocuments: outcome.counters.TruncatedDocuments,
  });
});
