/**
 * Transform throughput against a bare-decode floor, interleaved in one process: the transform alone
 * (serialization only), the transform as deployed (aggregation on: chunks planned into KPL records and encoded),
 * the Pipes path (the enrichment's batch, answered as the Lambda runtime serializes it), and the floor (gunzip,
 * parse, stringify a minimal document per event). `npm run bench` runs it.
 */
import { gunzipSync } from 'node:zlib';
import { processPipesBatch, type PipesBatchDeps } from '../lambda/transform/pipes-batch';
import { encodeRecord, planRecords } from '../lambda/transform/record-plan';
import { toErrorDocument, transformRecord } from '../core/transform/transform';
import type { SerializedDocument } from '../core/transform/types';
import { MAX_PUT_RECORDS_BYTES, PIPES_SAFE_BATCH_SIZE } from '../core/contracts/aws-limits';
import { completeWrite } from '../test/helpers/write-results';
import { gc, median } from './helpers/stats';
import { BENCH_ARRIVAL_SECONDS, type Corpus, forEachChunk } from './helpers/transform-corpus';

const ROUNDS = 7;
const SLICES_PER_ROUND = 20;

interface FloorEvent {
  readonly id: string;
  readonly timestamp: number;
  readonly message: string;
}

/** The floor: gunzip, parse the envelope, stringify a minimal document per event. Nothing else. */
function floorRecord(data: string): number {
  const envelope = JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as {
    logEvents: FloorEvent[];
  };
  let bytes = 0;
  for (const e of envelope.logEvents) {
    bytes += JSON.stringify({
      '@timestamp': new Date(e.timestamp).toISOString(),
      message: e.message,
      id: e.id,
    }).length;
  }
  return bytes;
}

function runTransform(records: readonly string[]): { events: number; ms: number } {
  const start = process.hrtime.bigint();
  let events = 0;
  for (const r of records) {
    const outcome = transformRecord(r, { approximateArrivalTimestamp: BENCH_ARRIVAL_SECONDS });
    if (outcome.kind !== 'data') throw new Error(`benchmark record was ${outcome.kind}`);
    events += outcome.documents.length;
  }
  return { events, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

/**
 * The transform as the Kinesis handler runs it with aggregation on: records are transformed in chunks (closed at
 * the first record boundary after 5,000 documents or 25 MiB, as `kinesis-batch.ts` does), and each chunk's
 * documents are planned into events-stream records and encoded, as the writer does before PutRecords.
 */
function runTransformAggregated(records: readonly string[]): { events: number; ms: number; bytes: number } {
  const start = process.hrtime.bigint();
  let events = 0;
  let bytes = 0;
  forEachChunk(records, (documents) => {
    events += documents.length;
    for (const record of planRecords(documents, {
      aggregate: true,
      maxBytesPerCall: MAX_PUT_RECORDS_BYTES,
    })) {
      bytes += encodeRecord(record, documents).length;
    }
  });
  return { events, ms: Number(process.hrtime.bigint() - start) / 1e6, bytes };
}

/** Plans and encodes written documents as the writer does before PutRecords; returns the bytes. */
function encodeWritten(documents: readonly SerializedDocument[]): number {
  let bytes = 0;
  for (const record of planRecords(documents, { aggregate: true, maxBytesPerCall: MAX_PUT_RECORDS_BYTES })) {
    bytes += encodeRecord(record, documents).length;
  }
  return bytes;
}

/**
 * The Pipes path as deployed: records in batches of the pipe's batch size (`PIPES_SAFE_BATCH_SIZE`), each batch
 * through `processPipesBatch`, and the answer serialized the way the Lambda runtime does (JSON.stringify). A batch
 * whose answer does not fit the pipe is written by the enrichment itself: the in-memory writer here plans and
 * encodes those records as the Kinesis writer would, so both paths pay for what reaches the events stream.
 */
async function runPipes(records: readonly string[]): Promise<{ events: number; ms: number }> {
  let events = 0;
  let sink = 0;
  const deps: PipesBatchDeps = {
    transform: transformRecord,
    errorDocument: toErrorDocument,
    writer: {
      write: (documents) => {
        sink += encodeWritten(documents);
        return Promise.resolve(completeWrite(documents));
      },
    },
    deadLetters: { put: () => Promise.reject(new Error('benchmark records are never poison')) },
    deadLetterBucket: 'bench',
    logger: { warn: () => undefined, error: () => undefined },
    remainingMs: () => 60_000,
  };
  const start = process.hrtime.bigint();
  for (let i = 0; i < records.length; i += PIPES_SAFE_BATCH_SIZE) {
    const batch = records.slice(i, i + PIPES_SAFE_BATCH_SIZE).map((data, k) => ({
      data,
      partitionKey: 'p',
      sequenceNumber: String(i + k),
      approximateArrivalTimestamp: BENCH_ARRIVAL_SECONDS,
    }));
    const outcome = await processPipesBatch(batch, deps);
    sink += JSON.stringify(outcome.items).length;
    events += outcome.counters.EventsOut;
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (sink === 0) throw new Error('the Pipes path produced nothing');
  return { events, ms };
}

function runFloor(records: readonly string[], expectedEvents: number): { events: number; ms: number } {
  const start = process.hrtime.bigint();
  let sink = 0;
  for (const r of records) sink += floorRecord(r);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (sink === 0) throw new Error('floor produced nothing');
  return { events: expectedEvents, ms };
}

interface Slice {
  readonly records: string[];
  readonly events: number;
}

/** Cuts the corpus into `count` slices of about equal event counts (a 10,000-event record is one slice's worth). */
function sliceRecords(records: readonly string[], count: number): Slice[] {
  const counts = records.map((r) => {
    const envelope = JSON.parse(gunzipSync(Buffer.from(r, 'base64')).toString('utf8')) as {
      logEvents: unknown[];
    };
    return envelope.logEvents.length;
  });
  const total = counts.reduce((a, b) => a + b, 0);
  const target = total / count;
  const slices: Slice[] = [];
  let current: string[] = [];
  let events = 0;
  records.forEach((r, i) => {
    current.push(r);
    events += counts[i];
    if (events >= target) {
      slices.push({ records: current, events });
      current = [];
      events = 0;
    }
  });
  if (current.length > 0) slices.push({ records: current, events });
  return slices;
}

export interface ThroughputResult {
  /** Median events/s of the transform alone, with aggregation (the Kinesis path), of the Pipes path, of the floor. */
  readonly transformRate: number;
  readonly aggregatedRate: number;
  readonly pipesRate: number;
  readonly floorRate: number;
}

/** Runs the rounds, printing one line per round, and returns the medians. */
export async function runThroughput(corpus: Corpus): Promise<ThroughputResult> {
  // Warm-up: let every code path get optimised before anything is measured.
  runTransform(corpus.records);
  await runPipes(corpus.records);
  runFloor(corpus.records, corpus.events);

  // Interleaved at slice granularity: within a round, each slice of records is run by both sides
  // back to back (alternating which goes first), so load from other processes on this shared
  // machine hits both sides alike. The round's rate is events over the summed time of its slices.
  const slices = sliceRecords(corpus.records, SLICES_PER_ROUND);
  const transformRates: number[] = [];
  const aggregatedRates: number[] = [];
  const pipesRates: number[] = [];
  const floorRates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    gc();
    let transformMs = 0;
    let aggregatedMs = 0;
    let pipesMs = 0;
    let floorMs = 0;
    let transformEvents = 0;
    let aggregatedEvents = 0;
    let pipesEvents = 0;
    for (const [i, slice] of slices.entries()) {
      // The sides take turns going first, so load from other processes hits them alike.
      const sides: Array<() => Promise<void> | void> = [
        () => {
          const t = runTransform(slice.records);
          transformMs += t.ms;
          transformEvents += t.events;
        },
        () => {
          const a = runTransformAggregated(slice.records);
          aggregatedMs += a.ms;
          aggregatedEvents += a.events;
        },
        async () => {
          const p = await runPipes(slice.records);
          pipesMs += p.ms;
          pipesEvents += p.events;
        },
        () => {
          floorMs += runFloor(slice.records, slice.events).ms;
        },
      ];
      for (let k = 0; k < sides.length; k++) await sides[(i + round + k) % sides.length]();
    }
    if (
      transformEvents !== corpus.events ||
      aggregatedEvents !== corpus.events ||
      pipesEvents !== corpus.events
    ) {
      throw new Error(
        `transform produced ${transformEvents}, ${aggregatedEvents} and ${pipesEvents} (Pipes) events, ` +
          `expected ${corpus.events}`,
      );
    }
    transformRates.push((corpus.events / transformMs) * 1000);
    aggregatedRates.push((corpus.events / aggregatedMs) * 1000);
    pipesRates.push((corpus.events / pipesMs) * 1000);
    floorRates.push((corpus.events / floorMs) * 1000);
    console.log(
      `  round ${round + 1}: transform ${Math.round(transformRates[round])} events/s (${transformMs.toFixed(0)} ms), ` +
        `with aggregation ${Math.round(aggregatedRates[round])} events/s (${aggregatedMs.toFixed(0)} ms), ` +
        `Pipes ${Math.round(pipesRates[round])} events/s (${pipesMs.toFixed(0)} ms), ` +
        `floor ${Math.round(floorRates[round])} events/s (${floorMs.toFixed(0)} ms), ` +
        `ratio ${(transformMs / floorMs).toFixed(2)} / with aggregation ${(aggregatedMs / floorMs).toFixed(2)}`,
    );
  }

  return {
    transformRate: median(transformRates),
    aggregatedRate: median(aggregatedRates),
    pipesRate: median(pipesRates),
    floorRate: median(floorRates),
  };
}

/** The two summary lines; the second is the one CI and the README quote, and `npm run bench` prints it last. */
export function throughputLines(result: ThroughputResult): string[] {
  const { transformRate, aggregatedRate, pipesRate, floorRate } = result;
  return [
    `transform without the write path (serialization only, as measured before aggregation): ` +
      `${Math.round(transformRate)} events/s, ratio: ${(floorRate / transformRate).toFixed(2)}`,
    `Pipes path: ${Math.round(pipesRate)} events/s, Kinesis path (with aggregation): ${Math.round(aggregatedRate)} ` +
      `events/s, Pipes/Kinesis: ${(pipesRate / aggregatedRate).toFixed(2)} (target: at least 0.50)`,
    `transform: ${Math.round(aggregatedRate)} events/s, floor: ${Math.round(floorRate)} events/s, ratio: ${(floorRate / aggregatedRate).toFixed(2)}`,
  ];
}
