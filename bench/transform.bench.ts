/**
 * `npm run bench`: transform throughput against a bare-decode floor, what the events stream carries and costs
 * per 1,000 events with and without KPL aggregation, memory, and the handler bundle's size and load time. The
 * last line printed is exactly `transform: <N> events/s, floor: <M> events/s, ratio: <M/N>` (target: ratio
 * <= 2.0), where the transform includes packing and encoding the aggregated records, as deployed.
 *
 * Memory is measured in child processes (this file run with `--child=<case>`), so that each peak
 * RSS belongs to one case and not to corpus generation or the throughput rounds.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { TransformServiceName, transformEnvironment } from '../core/contracts/transform-env';
import { encodeRecord, planRecords } from '../lambda/transform/record-plan';
import { transformRecord } from '../lambda/transform/transform';
import { MAX_PUT_RECORDS_BYTES, type SerializedDocument } from '../lambda/transform/types';
import { LOCAL_ESBUILD_BUNDLING } from '../lib/constructs/bundling';
import { CorpusGenerator } from './corpus';

const ROOT = resolve(__dirname, '..');
const ROUNDS = 7;
const SLICES_PER_ROUND = 20;
const SMALL_BATCH_EVENTS = 100_000;
const LARGE_BATCHES = 10;
const LARGE_BATCH_SIZE = 10_000;
/** Lambda's synchronous invocation payload limit, which caps one Kinesis event source batch. */
const EVENT_SOURCE_BATCH_BYTES = 6 * 1024 * 1024;
/** Kinesis' record size limit: the raw (decoded) data of one record. */
const KINESIS_RECORD_BYTES = 1024 * 1024;
/** CloudWatch Logs' PutLogEvents batch limit, which bounds one subscription envelope's events. */
const CWL_BATCH_BYTES = 1_048_576;

interface Corpus {
  readonly records: string[];
  readonly events: number;
  readonly smallRecords: number;
  readonly largeRecords: number;
}

function encode(envelope: object): string {
  return gzipSync(Buffer.from(JSON.stringify(envelope), 'utf8')).toString('base64');
}

function buildCorpus(): Corpus {
  const gen = new CorpusGenerator(42);
  const records: string[] = [];
  let events = 0;
  let smallRecords = 0;
  while (events < SMALL_BATCH_EVENTS) {
    const n = gen.between(1, 50);
    records.push(encode(gen.envelope(n)));
    events += n;
    smallRecords++;
  }
  for (let i = 0; i < LARGE_BATCHES; i++) {
    records.push(encode(gen.envelope(LARGE_BATCH_SIZE)));
    events += LARGE_BATCH_SIZE;
  }
  return { records, events, smallRecords, largeRecords: LARGE_BATCHES };
}

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
    const outcome = transformRecord(r);
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

const CHUNK_DOCUMENTS = 5000;
const CHUNK_BYTES = 25 * 1024 * 1024;

/** Transforms `records` and hands their documents over in the handler's chunks. */
function forEachChunk(records: readonly string[], onChunk: (documents: SerializedDocument[]) => void): void {
  let documents: SerializedDocument[] = [];
  let bytes = 0;
  for (const r of records) {
    const outcome = transformRecord(r);
    if (outcome.kind !== 'data') throw new Error(`benchmark record was ${outcome.kind}`);
    for (const d of outcome.documents) {
      documents.push(d);
      bytes += d.bytes;
    }
    if (documents.length >= CHUNK_DOCUMENTS || bytes >= CHUNK_BYTES) {
      onChunk(documents);
      documents = [];
      bytes = 0;
    }
  }
  if (documents.length > 0) onChunk(documents);
}

/** Kinesis counts PUT payload units per 25 KB of each record (https://aws.amazon.com/kinesis/data-streams/pricing/). */
const PUT_PAYLOAD_UNIT_BYTES = 25 * 1024;
/** Firehose bills ingestion per record rounded up to 5 KB (https://aws.amazon.com/firehose/pricing/). */
const FIREHOSE_ROUNDING_BYTES = 5 * 1024;

interface StreamArithmetic {
  readonly events: number;
  readonly records: number;
  readonly dataBytes: number;
  readonly putPayloadUnits: number;
  readonly firehoseBilledBytes: number;
  /** Time spent planning and encoding the records (the transform's time excluded). */
  readonly encodeMs: number;
}

/** What the events stream carries for the corpus, record by record, with or without aggregation. */
function streamArithmetic(records: readonly string[], aggregate: boolean): StreamArithmetic {
  let events = 0;
  let count = 0;
  let dataBytes = 0;
  let putPayloadUnits = 0;
  let firehoseBilledBytes = 0;
  let encodeNs = 0n;
  forEachChunk(records, (documents) => {
    events += documents.length;
    const start = process.hrtime.bigint();
    const planned = planRecords(documents, { aggregate, maxBytesPerCall: MAX_PUT_RECORDS_BYTES });
    for (const record of planned) encodeRecord(record, documents);
    encodeNs += process.hrtime.bigint() - start;
    for (const record of planned) {
      const data = (record.data as Buffer).length;
      count += 1;
      dataBytes += data;
      // The record's size as Kinesis counts it (data plus partition key) for PUT payload units; Firehose is
      // assumed to bill each events-stream record it reads as one record of its data's size.
      putPayloadUnits += Math.ceil(record.bytes / PUT_PAYLOAD_UNIT_BYTES);
      firehoseBilledBytes += Math.max(1, Math.ceil(data / FIREHOSE_ROUNDING_BYTES)) * FIREHOSE_ROUNDING_BYTES;
    }
  });
  return {
    events,
    records: count,
    dataBytes,
    putPayloadUnits,
    firehoseBilledBytes,
    encodeMs: Number(encodeNs) / 1e6,
  };
}

function printArithmetic(without: StreamArithmetic, withAggregation: StreamArithmetic): void {
  const per1000 = (value: number, a: StreamArithmetic): number => (value / a.events) * 1000;
  const row = (label: string, f: (a: StreamArithmetic) => string): string =>
    `  ${label.padEnd(44)} ${f(without).padStart(16)} ${f(withAggregation).padStart(16)}`;
  const saving = (f: (a: StreamArithmetic) => number): string => (f(without) / f(withAggregation)).toFixed(1);
  console.log(
    `events stream for the corpus (${without.events} events, the handler's chunks of <= ${CHUNK_DOCUMENTS} documents):`,
  );
  console.log(`  ${''.padEnd(44)} ${'one per document'.padStart(16)} ${'aggregated'.padStart(16)}`);
  console.log(row('documents per events-stream record', (a) => (a.events / a.records).toFixed(1)));
  console.log(row('events-stream records per 1,000 events', (a) => per1000(a.records, a).toFixed(1)));
  console.log(row('record data per 1,000 events (KiB)', (a) => (per1000(a.dataBytes, a) / 1024).toFixed(1)));
  console.log(
    row('Kinesis PUT payload units per 1,000 events', (a) => per1000(a.putPayloadUnits, a).toFixed(1)),
  );
  console.log(
    row('Firehose billed KiB per 1,000 events', (a) => (per1000(a.firehoseBilledBytes, a) / 1024).toFixed(1)),
  );
  // One pass each, not interleaved: a rough figure for what the write path adds beyond the transform (the plain
  // path's Buffer.from per document vs UTF-8 encoding plus MD5 into aggregated records).
  console.log(row('plan + encode all records (ms, one pass)', (a) => a.encodeMs.toFixed(0)));
  console.log(
    `  aggregation: ${saving((a) => a.records)}x fewer records, ${saving((a) => a.putPayloadUnits)}x fewer PUT payload ` +
      `units, ${saving((a) => a.firehoseBilledBytes)}x fewer Firehose billed bytes`,
  );
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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect) collect();
}

const MiB = 1024 * 1024;
const mb = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;

// ---------------------------------------------------------------------------------------------
// Memory cases, each in its own process.

interface MemoryReport {
  readonly case: string;
  readonly records: number;
  readonly recordDataBytes: number;
  readonly decompressedBytes: number;
  readonly events: number;
  readonly outputBytes: number;
  readonly rssBefore: number;
  readonly peakRss: number;
  readonly heapUsedDelta: number;
  readonly ms: number;
}

/** Records of realistic events, each at most `maxRecordBytes` compressed and `maxEnvelopeBytes` decompressed. */
function buildBatch(
  gen: CorpusGenerator,
  maxRecordBytes: number,
  maxEnvelopeBytes: number,
  totalBase64: number,
): string[] {
  const records: string[] = [];
  let total = 0;
  for (;;) {
    // Grow the envelope in chunks until the next chunk would break a limit.
    const envelope = gen.envelope(0) as { logEvents: unknown[] };
    let json = JSON.stringify(envelope);
    let gz = gzipSync(json);
    for (;;) {
      const chunk = gen.events(500);
      const candidate = { ...envelope, logEvents: [...envelope.logEvents, ...chunk] };
      const candidateJson = JSON.stringify(candidate);
      if (candidateJson.length > maxEnvelopeBytes) break;
      const candidateGz = gzipSync(candidateJson);
      if (candidateGz.length > maxRecordBytes) break;
      envelope.logEvents = candidate.logEvents;
      json = candidateJson;
      gz = candidateGz;
    }
    const data = gz.toString('base64');
    // ~600 bytes of per-record event JSON around the data (ids, ARNs, sequence numbers).
    if (total + data.length + 600 > totalBase64) break;
    records.push(data);
    total += data.length + 600;
  }
  return records;
}

function memoryCase(name: string): MemoryReport {
  const gen = new CorpusGenerator(7);
  let records: string[];
  let hold = true;
  if (name === 'envelope-10k') {
    records = [encode(gen.envelope(LARGE_BATCH_SIZE))];
  } else if (name === 'batch-6mb-cwl') {
    // What CloudWatch Logs really sends: envelopes of at most 1 MiB of events.
    records = buildBatch(gen, KINESIS_RECORD_BYTES, CWL_BATCH_BYTES * 1.3, EVENT_SOURCE_BATCH_BYTES);
  } else if (name === 'batch-6mb-1mb-records') {
    // Worst case any producer could write: every record a full 1 MiB of gzip.
    records = buildBatch(gen, KINESIS_RECORD_BYTES, Number.MAX_SAFE_INTEGER, EVENT_SOURCE_BATCH_BYTES);
  } else if (name === 'batch-6mb-1mb-records-streaming') {
    records = buildBatch(gen, KINESIS_RECORD_BYTES, Number.MAX_SAFE_INTEGER, EVENT_SOURCE_BATCH_BYTES);
    hold = false;
  } else {
    throw new Error(`unknown memory case ${name}`);
  }
  const recordDataBytes = records.reduce((sum, r) => sum + Buffer.byteLength(r, 'base64'), 0);
  const decompressedBytes = records.reduce((sum, r) => sum + gunzipSync(Buffer.from(r, 'base64')).length, 0);
  gc();
  gc();
  const before = process.memoryUsage();
  const start = process.hrtime.bigint();
  const kept: unknown[] = [];
  let events = 0;
  let outputBytes = 0;
  for (const r of records) {
    const outcome = transformRecord(r);
    if (outcome.kind !== 'data') throw new Error(`memory record was ${outcome.kind}`);
    events += outcome.documents.length;
    for (const d of outcome.documents) outputBytes += d.bytes;
    // The Kinesis handler keeps every document of the batch until it is written; hold them too.
    if (hold) kept.push(outcome);
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const after = process.memoryUsage();
  const peakRss = process.resourceUsage().maxRSS * 1024;
  if (kept.length > records.length) throw new Error('unreachable');
  return {
    case: name,
    records: records.length,
    recordDataBytes,
    decompressedBytes,
    events,
    outputBytes,
    rssBefore: before.rss,
    peakRss,
    heapUsedDelta: after.heapUsed - before.heapUsed,
    ms,
  };
}

/**
 * The memory children run this file bundled to plain JavaScript, so their RSS is node's plus the
 * transform's, as in Lambda, not ts-node's compiler too. Falls back to ts-node if bundling fails.
 */
function childCommand(): string[] {
  const outfile = join(BENCH_OUT_DIR, 'bench-child.js');
  try {
    bundle(__filename, outfile, { target: 'node20' });
    return ['--expose-gc', outfile];
  } catch {
    return ['--expose-gc', '-r', 'ts-node/register/transpile-only', __filename];
  }
}

let childArgs: string[] | undefined;

function runMemoryChild(name: string): MemoryReport | string {
  childArgs ??= childCommand();
  const child = spawnSync(process.execPath, [...childArgs, `--child=${name}`], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 16 * MiB,
  });
  if (child.status !== 0) return `failed: ${child.stderr.trim().split('\n').slice(-3).join(' | ')}`;
  return JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') as MemoryReport;
}

function printMemory(report: MemoryReport | string, label: string): void {
  if (typeof report === 'string') {
    console.log(`  ${label}: ${report}`);
    return;
  }
  console.log(
    `  ${label}: ${report.records} record(s), ${mb(report.recordDataBytes)} record data, ${mb(report.decompressedBytes)} decompressed, ` +
      `${report.events} events -> ${mb(report.outputBytes)} of documents in ${report.ms.toFixed(0)} ms; ` +
      `peak RSS ${mb(report.peakRss)} (RSS before ${mb(report.rssBefore)}, +${mb(report.peakRss - report.rssBefore)}), ` +
      `heapUsed +${mb(report.heapUsedDelta)}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Bundle size and require time of the Kinesis handler.

interface EsbuildLike {
  buildSync(options: Record<string, unknown>): unknown;
}

const BENCH_OUT_DIR = join(ROOT, '.kfek/bench');

/** Bundles `entry` into one CommonJS file for node with the local esbuild; throws what esbuild throws. */
function bundle(entry: string, outfile: string, options: Record<string, unknown>): void {
  mkdirSync(BENCH_OUT_DIR, { recursive: true });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('esbuild') as EsbuildLike).buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile,
    logLevel: 'silent',
    ...options,
  });
}

const DEPLOYED = LOCAL_ESBUILD_BUNDLING.bundling ?? {};
const DEPLOYED_DESCRIPTION =
  `${DEPLOYED.target ?? 'default target'}, ` +
  ((DEPLOYED.externalModules ?? []).length === 0
    ? 'AWS SDK bundled'
    : `external ${String(DEPLOYED.externalModules)}`);

function bundleReport(): string[] {
  const outfile = join(BENCH_OUT_DIR, 'handler.js');
  try {
    // The options the deployed function is bundled with (lib/constructs/bundling.ts): the AWS SDK clients are in
    // the bundle, so this is the code Lambda loads at a cold start.
    bundle(join(ROOT, 'lambda/transform/handler.ts'), outfile, {
      minify: DEPLOYED.minify ?? false,
      target: DEPLOYED.target,
      external: [...(DEPLOYED.externalModules ?? [])],
    });
  } catch (err) {
    return [
      `  handler bundle: esbuild failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
    ];
  }
  const size = statSync(outfile).size;
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const probe = spawnSync(
      process.execPath,
      [
        '-e',
        `const t=process.hrtime.bigint();require(${JSON.stringify(outfile)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`,
      ],
      // A Lambda-like environment, so module-scope configuration parsing succeeds.
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: {
          ...process.env,
          AWS_REGION: 'eu-west-1',
          ...transformEnvironment({
            serviceName: TransformServiceName.kinesis,
            eventsStreamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events',
            deadLetterBucket: 'kfek-dead-letters',
          }),
          AWS_LAMBDA_FUNCTION_NAME: 'kfek-transform',
        },
      },
    );
    if (probe.status !== 0) {
      return [
        `  handler bundle: ${(size / 1024).toFixed(1)} KiB minified (as deployed: ${DEPLOYED_DESCRIPTION})`,
        `  handler require: failed: ${probe.stderr.trim().split('\n').slice(-2).join(' | ')}`,
      ];
    }
    times.push(Number(probe.stdout));
  }
  return [
    `  handler bundle: ${(size / 1024).toFixed(1)} KiB minified (as deployed: ${DEPLOYED_DESCRIPTION})`,
    `  handler require time: ${median(times).toFixed(1)} ms median of 5 fresh node processes (includes the SDK clients it loads)`,
  ];
}

// ---------------------------------------------------------------------------------------------

function main(): void {
  const childArg = process.argv.find((a) => a.startsWith('--child='));
  if (childArg) {
    console.log(JSON.stringify(memoryCase(childArg.slice('--child='.length))));
    return;
  }

  const t0 = Date.now();
  const corpus = buildCorpus();
  const base64Bytes = corpus.records.reduce((s, r) => s + r.length, 0);
  console.log(
    `corpus: ${corpus.events} events in ${corpus.records.length} records ` +
      `(${corpus.smallRecords} small batches of 1-50 events, ${corpus.largeRecords} of ${LARGE_BATCH_SIZE}), ` +
      `${mb(base64Bytes)} base64, built in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );

  // Warm-up: let both code paths get optimised before anything is measured.
  runTransform(corpus.records);
  runFloor(corpus.records, corpus.events);

  // Interleaved at slice granularity: within a round, each slice of records is run by both sides
  // back to back (alternating which goes first), so load from other processes on this shared
  // machine hits both sides alike. The round's rate is events over the summed time of its slices.
  const slices = sliceRecords(corpus.records, SLICES_PER_ROUND);
  const transformRates: number[] = [];
  const aggregatedRates: number[] = [];
  const floorRates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    gc();
    let transformMs = 0;
    let aggregatedMs = 0;
    let floorMs = 0;
    let transformEvents = 0;
    let aggregatedEvents = 0;
    slices.forEach((slice, i) => {
      // The three sides take turns going first, so load from other processes hits them alike.
      const sides = [
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
        () => {
          floorMs += runFloor(slice.records, slice.events).ms;
        },
      ];
      for (let k = 0; k < sides.length; k++) sides[(i + round + k) % sides.length]();
    });
    if (transformEvents !== corpus.events || aggregatedEvents !== corpus.events) {
      throw new Error(
        `transform produced ${transformEvents} and ${aggregatedEvents} events, expected ${corpus.events}`,
      );
    }
    transformRates.push((corpus.events / transformMs) * 1000);
    aggregatedRates.push((corpus.events / aggregatedMs) * 1000);
    floorRates.push((corpus.events / floorMs) * 1000);
    console.log(
      `  round ${round + 1}: transform ${Math.round(transformRates[round])} events/s (${transformMs.toFixed(0)} ms), ` +
        `with aggregation ${Math.round(aggregatedRates[round])} events/s (${aggregatedMs.toFixed(0)} ms), ` +
        `floor ${Math.round(floorRates[round])} events/s (${floorMs.toFixed(0)} ms), ` +
        `ratio ${(transformMs / floorMs).toFixed(2)} / with aggregation ${(aggregatedMs / floorMs).toFixed(2)}`,
    );
  }

  printArithmetic(streamArithmetic(corpus.records, false), streamArithmetic(corpus.records, true));

  console.log(
    'memory (each case in a fresh node process running the bundled benchmark; peak RSS is the whole process):',
  );
  printMemory(runMemoryChild('envelope-10k'), 'one 10,000-event envelope');
  printMemory(
    runMemoryChild('batch-6mb-cwl'),
    '6 MB event-source batch, CloudWatch-sized envelopes (<= 1 MiB of events)',
  );
  printMemory(
    runMemoryChild('batch-6mb-1mb-records'),
    '6 MB event-source batch, 1 MiB gzip records, all documents held',
  );
  printMemory(
    runMemoryChild('batch-6mb-1mb-records-streaming'),
    '6 MB event-source batch, 1 MiB gzip records, one record at a time',
  );
  for (const line of bundleReport()) console.log(line);

  const transformRate = median(transformRates);
  const aggregatedRate = median(aggregatedRates);
  const floorRate = median(floorRates);
  console.log(
    `transform without the write path (serialization only, as measured before aggregation): ` +
      `${Math.round(transformRate)} events/s, ratio: ${(floorRate / transformRate).toFixed(2)}`,
  );
  // The line CI and the README quote: the transform as deployed, aggregation on.
  console.log(
    `transform: ${Math.round(aggregatedRate)} events/s, floor: ${Math.round(floorRate)} events/s, ratio: ${(floorRate / aggregatedRate).toFixed(2)}`,
  );
}

main();
