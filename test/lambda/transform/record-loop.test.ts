/**
 * Both transports run the one record loop (record-loop.ts): every fault below runs on the Kinesis batch and on the
 * Pipes batch with the same records and a scripted core, and both must keep the same events, keep the same poison
 * records with the same reason, and count the same. Before the one loop, the Pipes path let a throwing core fail
 * the whole batch and had no size guard.
 */
import type { KinesisStreamEvent } from 'aws-lambda';
import { processKinesisBatch } from '../../../lambda/transform/kinesis-batch';
import type { TransformCounters } from '../../../lambda/transform/metrics';
import { processPipesBatch, PipesDeadLetterError } from '../../../lambda/transform/pipes-batch';
import type { DeadLetterStore, RecordTransform } from '../../../lambda/transform/ports';
import type { RecordOutcome, SerializedDocument } from '../../../core/transform/types';
import { MAX_KINESIS_RECORD_BYTES } from '../../../core/contracts/aws-limits';
import { completeWrite } from '../../helpers/write-results';

/**
 * A record's data is a script: `data:a,b` (documents a and b; `a!` is a cut one), `masked:a` (one document, one value
 * masked, one event dropped by rule r, one line joined), `big` (a document the core failed to fit one record),
 * `control`, `poison:<reason>` or `throw`.
 */
const scripted: RecordTransform = (data) => {
  const text = Buffer.from(data, 'base64').toString('utf8');
  const doc = (message: string, pad = 0): SerializedDocument => {
    const json = JSON.stringify({ message, pad: 'x'.repeat(pad) });
    return { json, bytes: Buffer.byteLength(json), partitionKey: 'g/s', truncated: message.endsWith('!') };
  };
  if (text === 'control') return { kind: 'control' };
  if (text === 'throw') throw new Error('core bug');
  if (text === 'big') return { kind: 'data', documents: [doc('big', MAX_KINESIS_RECORD_BYTES)] };
  if (text.startsWith('poison:')) return { kind: 'poison', reason: text.slice('poison:'.length) };
  if (text.startsWith('masked:')) {
    return {
      kind: 'data',
      documents: [doc(text.slice('masked:'.length))],
      processing: { maskedValues: 1, droppedByRule: { r: 1 }, joinedLines: 1 },
    } satisfies RecordOutcome;
  }
  return {
    kind: 'data',
    documents: text
      .slice('data:'.length)
      .split(',')
      .map((m) => doc(m)),
  };
};

interface Run {
  /** Messages of the data documents delivered (written or answered), in order. */
  readonly delivered: string[];
  /** Reasons of the poison records kept. */
  readonly kept: string[];
  readonly counters: TransformCounters;
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const messagesOf = (docs: readonly { json: string }[]): string[] =>
  docs.map((d) => String((JSON.parse(d.json) as { message?: unknown }).message));
const logger = { warn: (): void => undefined, error: (): void => undefined };

function store(kept: string[], failing = false): DeadLetterStore {
  return {
    put: (source, _data, reason) => {
      if (failing) return Promise.reject(new Error('bucket down'));
      kept.push(reason);
      return Promise.resolve(`dead-letter/${source.sequenceNumber}.json`);
    },
  };
}

async function onKinesis(
  datas: readonly unknown[],
  failingStore = false,
): Promise<Run & { resumeAt?: string }> {
  const kept: string[] = [];
  const written: SerializedDocument[] = [];
  const event = {
    Records: datas.map((data, i) => ({
      eventID: `shardId-000000000000:${i}`,
      eventSourceARN: 'arn:aws:kinesis:eu-west-1:123456789012:stream/raw',
      kinesis: {
        data,
        sequenceNumber: String(i),
        partitionKey: 'pk',
        approximateArrivalTimestamp: 1_795_000_000,
      },
    })),
  } as unknown as KinesisStreamEvent;
  const { response, counters } = await processKinesisBatch(event, () => 30_000, {
    transform: scripted,
    writer: {
      write: (docs) => {
        written.push(...docs);
        return Promise.resolve(completeWrite(docs));
      },
    },
    deadLetters: store(kept, failingStore),
    logger,
  });
  return {
    delivered: messagesOf(written),
    kept,
    counters,
    resumeAt: response.batchItemFailures[0]?.itemIdentifier,
  };
}

async function onPipes(datas: readonly unknown[], failingStore = false): Promise<Run> {
  const kept: string[] = [];
  const { items, counters } = await processPipesBatch(
    datas.map((data, i) => ({
      data,
      sequenceNumber: String(i),
      partitionKey: 'pk',
      approximateArrivalTimestamp: 1_795_000_000,
    })),
    {
      transform: scripted,
      errorDocument: (_raw, reason) => ({ message: `error: ${reason}` }) as never,
      writer: { write: (docs) => Promise.resolve(completeWrite(docs)) },
      deadLetters: store(kept, failingStore),
      deadLetterBucket: 'bucket',
      logger,
      remainingMs: () => 30_000,
    },
  );
  const delivered = items
    .map((item) => String((item as { message?: unknown }).message))
    .filter((m) => !m.startsWith('error: '));
  return { delivered, kept, counters };
}

/** The counters both transports must agree on (the Pipes answer also counts its error documents as events out). */
function shared(counters: TransformCounters): Partial<TransformCounters> {
  const { RecordsIn, ControlMessages, PoisonRecords, DeadLetteredRecords, TruncatedDocuments } = counters;
  const { MaskedValues, DroppedEvents, JoinedLines } = counters;
  return {
    RecordsIn,
    ControlMessages,
    PoisonRecords,
    DeadLetteredRecords,
    TruncatedDocuments,
    MaskedValues,
    DroppedEvents,
    JoinedLines,
  };
}

const FAULTS: ReadonlyArray<{ name: string; datas: unknown[]; delivered: string[]; kept: RegExp[] }> = [
  {
    name: 'a core that throws',
    datas: [b64('data:a'), b64('throw'), b64('data:b')],
    delivered: ['a', 'b'],
    kept: [/^transform failed unexpectedly: Error: core bug$/],
  },
  {
    name: 'a document too big for one Kinesis record',
    datas: [b64('data:a'), b64('big')],
    delivered: ['a'],
    kept: [/^a document of \d+ bytes does not fit one Kinesis record/],
  },
  {
    name: 'a record without data',
    datas: [b64('data:a'), 42, b64('data:b')],
    delivered: ['a', 'b'],
    kept: [/^record has no base64 data string$/],
  },
  {
    name: 'a poison record',
    datas: [b64('poison:not gzip'), b64('data:a')],
    delivered: ['a'],
    kept: [/^not gzip$/],
  },
  { name: 'a control message', datas: [b64('control'), b64('data:a')], delivered: ['a'], kept: [] },
  {
    name: 'cut, masked, dropped and joined events',
    datas: [b64('data:a!,b'), b64('masked:c')],
    delivered: ['a!', 'b', 'c'],
    kept: [],
  },
];

describe.each(FAULTS)('$name', ({ datas, delivered, kept }) => {
  test('both transports keep the same events and poison records, and count the same', async () => {
    // GIVEN the same records WHEN each transport runs them
    const kinesis = await onKinesis(datas);
    const pipes = await onPipes(datas);
    // THEN
    for (const run of [kinesis, pipes]) {
      expect(run.delivered).toEqual(delivered);
      expect(run.kept).toHaveLength(kept.length);
      run.kept.forEach((reason, i) => expect(reason).toMatch(kept[i]));
      expect(run.counters.PoisonRecords).toBe(kept.length);
    }
    expect(kinesis.resumeAt).toBeUndefined();
    expect(shared(pipes.counters)).toEqual(shared(kinesis.counters));
  });
});

test('fails the record, not the batch, when the dead-letter store is down: Kinesis resumes there, Pipes retries', async () => {
  // GIVEN a throwing core on the second record and a store that refuses
  const datas = [b64('data:a'), b64('throw'), b64('data:b')];
  // WHEN / THEN the Kinesis batch answers the poison record as its resume point, with what came before written
  const kinesis = await onKinesis(datas, true);
  expect(kinesis.resumeAt).toBe('1');
  expect(kinesis.delivered).toEqual(['a']);
  // and the Pipes batch fails as a whole with the typed error, so Pipes retries it (nothing answered, nothing lost)
  await expect(onPipes(datas, true)).rejects.toThrow(PipesDeadLetterError);
});
