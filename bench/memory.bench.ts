/**
 * Peak memory of the transform, each case in a fresh node process (this file, bundled to plain JavaScript, run
 * with `--child=<case>`), so that each peak RSS belongs to one case and not to corpus generation or the
 * throughput rounds, and is node's plus the transform's, as in Lambda, not ts-node's compiler too.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { transformRecord } from '../core/transform/transform';
import { CorpusGenerator } from './corpus';
import { BENCH_OUT_DIR, ROOT, bundle } from './helpers/esbuild';
import { gc, MiB, mb } from './helpers/stats';
import { encode, LARGE_BATCH_SIZE } from './helpers/transform-corpus';

/** Lambda's synchronous invocation payload limit, which caps one Kinesis event source batch. */
const EVENT_SOURCE_BATCH_BYTES = 6 * 1024 * 1024;
/** Kinesis' record size limit: the raw (decoded) data of one record. */
const KINESIS_RECORD_BYTES = 1024 * 1024;
/** CloudWatch Logs' PutLogEvents batch limit, which bounds one subscription envelope's events. */
const CWL_BATCH_BYTES = 1_048_576;

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

export function runMemoryChild(name: string): MemoryReport | string {
  childArgs ??= childCommand();
  const child = spawnSync(process.execPath, [...childArgs, `--child=${name}`], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 16 * MiB,
  });
  if (child.status !== 0) return `failed: ${child.stderr.trim().split('\n').slice(-3).join(' | ')}`;
  return JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') as MemoryReport;
}

export function printMemory(report: MemoryReport | string, label: string): void {
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

/** Prints the four cases. */
export function printMemoryCases(): void {
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
}

// The child: `node memory-child.js --child=<case>` prints the case's report as one JSON line.
const childArg = process.argv.find((a) => a.startsWith('--child='));
if (childArg !== undefined && require.main === module) {
  console.log(JSON.stringify(memoryCase(childArg.slice('--child='.length))));
}
