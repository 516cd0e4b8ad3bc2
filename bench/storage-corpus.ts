/**
 * The storage benchmark's corpus (bench/storage.bench.ts): transform documents from the two generators kfek has,
 * interleaved as Firehose would deliver several apps at once, each through the real transform:
 * - the benchmark corpus (bench/corpus.ts): JSON app logs, platform lines in both formats, runtime prefixes,
 *   Log4J, plain text and stack traces, 100 events per log stream;
 * - `npm start`'s generator (core/log-generator.ts): Powertools-style JSON, START/END/REPORT with shared request
 *   ids, Log4J lines, about 10 % ERROR, over 20 log streams of 5 log groups.
 * Deterministic: the same count gives the same documents.
 */
import { gzipSync } from 'node:zlib';
import { LogEventGenerator } from '../core/log-generator';
import { transformRecord } from '../core/transform/transform';
import { BenchError, transformDocuments } from './opensearch-bench';

/** Transform documents of `npm start`'s generator: envelopes of 50 events, rotating over 20 log streams. */
function generatorDocuments(count: number): string[] {
  const generator = new LogEventGenerator({ runId: 'bench-storage', seed: 31 });
  const docs: string[] = [];
  let time = Date.UTC(2026, 10, 23, 8, 0, 0);
  let id = 38_291_553_671_220_384_665_209_554_018_210_377_623_199_402_221_567_233_024n;
  for (let envelope = 0; docs.length < count; envelope++) {
    const stream = envelope % 20;
    const logEvents = Array.from({ length: 50 }, () => {
      time += 7;
      id += 1_000_003n;
      const event = generator.next(time);
      return { id: String(id), timestamp: event.timestamp, message: event.message };
    });
    const body = {
      messageType: 'DATA_MESSAGE',
      owner: '123456789012',
      logGroup: `/aws/lambda/orders-${stream % 5}`,
      logStream: `2026/11/23/[$LATEST]${(stream * 7919).toString(16).padStart(32, '0')}`,
      subscriptionFilters: ['kfek'],
      logEvents,
    };
    const outcome = transformRecord(gzipSync(Buffer.from(JSON.stringify(body), 'utf8')).toString('base64'));
    if (outcome.kind !== 'data') throw new BenchError(`generator envelope gave ${outcome.kind}`);
    for (const doc of outcome.documents) docs.push(doc.json);
  }
  return docs.slice(0, count);
}

/** `count` documents, half from each generator, alternating in runs of 50 as one Firehose buffer mixes apps. */
export function storageCorpus(count: number): string[] {
  const half = Math.ceil(count / 2);
  const a = transformDocuments(17, half);
  const b = generatorDocuments(count - half);
  const out: string[] = [];
  for (let i = 0; i < half; i += 50) out.push(...a.slice(i, i + 50), ...b.slice(i, i + 50));
  return out.slice(0, count);
}
