/**
 * Runs raw subscription records through the batch logic of both transports, as their handlers wire it (the pure core,
 * the routes, the dead-letter masking), with in-memory ports: what each transport delivers (documents, parsed),
 * dead-letters and logs. For tests that must hold on both transports (docs/teams-and-routes.md).
 */
import { processKinesisBatch } from '../../lambda/transform/kinesis-batch';
import { processPipesBatch, type PipesKinesisRecord } from '../../lambda/transform/pipes-batch';
import type { BatchLogger, DeadLetterStore, EventsWriter } from '../../lambda/transform/ports';
import type { RouteTable } from '../../core/transform/routing';
import { deadLetterData, toErrorDocument, transformRecord } from '../../core/transform/transform';
import type { LogDocument, SerializedDocument } from '../../core/transform/types';
import { makeKinesisEvent } from './cloudwatch';
import { completeWrite } from './write-results';

export type Transport = 'kinesis' | 'pipes';
export const TRANSPORTS: readonly Transport[] = ['kinesis', 'pipes'];

/** What one transport made of a batch. */
export interface Delivered {
  /** Every document delivered toward OpenSearch (the events stream, or the pipe's answer), parsed. */
  readonly documents: Array<LogDocument & Record<string, unknown>>;
  /** Their texts, as written. */
  readonly texts: string[];
  /** Dead-lettered records: the data kept and the reason. */
  readonly deadLetters: Array<{ readonly data: string; readonly reason: string }>;
  /** Every log line the batch logic wrote, with its attributes, as JSON. */
  readonly logs: string[];
}

function ports(): {
  writer: EventsWriter;
  deadLetters: DeadLetterStore;
  logger: BatchLogger;
  written: SerializedDocument[];
  kept: Array<{ data: string; reason: string }>;
  logs: string[];
} {
  const written: SerializedDocument[] = [];
  const kept: Array<{ data: string; reason: string }> = [];
  const logs: string[] = [];
  return {
    written,
    kept,
    logs,
    writer: {
      write: (docs) => {
        written.push(...docs);
        return Promise.resolve(completeWrite(docs));
      },
    },
    deadLetters: {
      put: (_source, data, reason) => {
        kept.push({ data, reason });
        return Promise.resolve(`dead-letter/${kept.length}`);
      },
    },
    logger: {
      warn: (message, ...attributes) => logs.push(JSON.stringify([message, ...attributes])),
      error: (message, ...attributes) => logs.push(JSON.stringify([message, ...attributes])),
    },
  };
}

/** Runs base64 records through one transport with the routes. */
export async function deliver(
  transport: Transport,
  datas: readonly string[],
  routes: RouteTable,
  options: { readonly maxRecordBytes?: number; readonly sourceRegions?: readonly string[] } = {},
): Promise<Delivered> {
  const p = ports();
  const transform = (data: string, o?: { maxRecordBytes?: number; partitionKeyInDocument?: boolean }) =>
    transformRecord(data, {
      ...o,
      ...(options.maxRecordBytes === undefined ? {} : { maxRecordBytes: options.maxRecordBytes }),
      ...(options.sourceRegions === undefined ? {} : { sourceRegions: options.sourceRegions }),
      routes,
    });
  const keep = (data: string) => deadLetterData(data, routes);
  const event = makeKinesisEvent(datas);
  let texts: string[];
  if (transport === 'kinesis') {
    await processKinesisBatch(event, () => 60_000, {
      transform,
      writer: p.writer,
      deadLetters: p.deadLetters,
      deadLetterData: keep,
      logger: p.logger,
    });
    texts = p.written.map((d) => d.json);
  } else {
    const records: PipesKinesisRecord[] = event.Records.map(({ kinesis, ...rest }) => ({
      ...kinesis,
      ...rest,
    }));
    const outcome = await processPipesBatch(records, {
      transform,
      errorDocument: routes.masks
        ? (_data, reason, at, deadLetter) => toErrorDocument('', reason, at, deadLetter)
        : toErrorDocument,
      writer: p.writer,
      deadLetters: p.deadLetters,
      deadLetterData: keep,
      deadLetterBucket: 'kfek-dead-letters',
      logger: p.logger,
      remainingMs: () => 60_000,
    });
    // The pipe writes each item as it is serialized by the runtime.
    texts = [...outcome.items.map((item) => JSON.stringify(item)), ...p.written.map((d) => d.json)];
  }
  return {
    documents: texts.map((t) => JSON.parse(t) as LogDocument & Record<string, unknown>),
    texts,
    deadLetters: p.kept,
    logs: p.logs,
  };
}
