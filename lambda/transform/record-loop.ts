/**
 * The one record loop both transports run (kinesis-batch.ts, pipes-batch.ts), shaped as Powertools' batch processor
 * (`BasePartialProcessor`: prepare, process each record, clean): the batch owns one of these, and each transport
 * keeps only its answer strategy (the Kinesis resume point; the pipe's items or the overflow write).
 *
 * What it owns is what must not drift between the transports, and did:
 * - isolation: a core that throws makes its record poison (kept in the dead-letter bucket with the reason), never an
 *   exception that fails the whole batch;
 * - the size guard: a document the core failed to fit one Kinesis record (with its partition key) makes its record
 *   poison, never a PutRecords call that fails validation and blocks the shard, nor an item the pipe cannot write;
 * - the counters: every per-record and per-write count of the invocation, in one accumulator.
 */
import type { RecordTransform, RecordTransformOptions, WriteResult } from './ports';
import { describeError } from '../../core/transform/errors';
import { countProcessing, type DropCounts, emptyCounters, type TransformCounters } from './metrics';
import { MAX_KINESIS_RECORD_BYTES } from '../../core/contracts/aws-limits';
import type { RecordOutcome } from '../../core/transform/types';

/** What the loop asks of the core for every record of one transport. */
export type RecordLoopOptions = Omit<RecordTransformOptions, 'approximateArrivalTimestamp'>;

/** What a batch counted: the metrics, and the documents each drop rule kept out. */
export interface BatchCounts {
  readonly counters: TransformCounters;
  readonly droppedByRule: DropCounts;
}

export class RecordLoop {
  private current: TransformCounters = emptyCounters();
  private dropped: DropCounts = {};

  constructor(
    private readonly transform: RecordTransform,
    private readonly options: RecordLoopOptions = {},
  ) {}

  /** Starts a batch of `records` records: the counters start from zero. */
  prepare(records: number): void {
    this.current = emptyCounters();
    this.dropped = {};
    this.current.RecordsIn = records;
  }

  /**
   * One record: its base64 data (anything else is poison) and its raw arrival. Never throws; counts what the
   * record gave (control message, poison, truncated documents, masked, dropped and joined events).
   */
  process(data: unknown, approximateArrivalTimestamp: unknown): RecordOutcome {
    const outcome = this.transformSafely(data, approximateArrivalTimestamp);
    if (outcome.kind === 'control') this.current.ControlMessages += 1;
    else if (outcome.kind === 'poison') this.current.PoisonRecords += 1;
    else {
      countProcessing(this.current, outcome.processing, this.dropped);
      for (const doc of outcome.documents) if (doc.truncated) this.current.TruncatedDocuments += 1;
    }
    return outcome;
  }

  /** A poison record's dead-letter object is stored. */
  deadLettered(): void {
    this.current.DeadLetteredRecords += 1;
  }

  /** What one write to the events stream did (`documents`: what counts as delivered of it). */
  wrote(
    result: Pick<WriteResult, 'recordsWritten' | 'retriedEntries' | 'throttles'>,
    documents: number,
  ): void {
    this.current.EventsOut += documents;
    this.current.RecordsOut += result.recordsWritten;
    this.current.RetriedEntries += result.retriedEntries;
    this.current.Throttles += result.throttles;
  }

  /** The live counters, for what only a transport knows (its overflow, its partial answers, its answered items). */
  get counters(): TransformCounters {
    return this.current;
  }

  /** Ends the batch: its counters and its drops by rule. */
  clean(): BatchCounts {
    return { counters: this.current, droppedByRule: this.dropped };
  }

  private transformSafely(data: unknown, approximateArrivalTimestamp: unknown): RecordOutcome {
    if (typeof data !== 'string') return { kind: 'poison', reason: 'record has no base64 data string' };
    let outcome: RecordOutcome;
    try {
      outcome = this.transform(data, { ...this.options, approximateArrivalTimestamp });
    } catch (error) {
      return { kind: 'poison', reason: `transform failed unexpectedly: ${describeError(error)}` };
    }
    if (outcome.kind !== 'data') return outcome;
    // Defence in depth: the core fits every document with its partition key into one Kinesis record (below
    // `maxRecordBytes`, then adds the `kfek.partitionKey` member where asked, for which Pipes reserves room); if it
    // ever fails to, the record is kept whole in the dead-letter bucket instead of blocking the shard.
    const oversized = outcome.documents.find(
      (doc) => doc.bytes + Buffer.byteLength(doc.partitionKey, 'utf8') > MAX_KINESIS_RECORD_BYTES,
    );
    return oversized === undefined
      ? outcome
      : {
          kind: 'poison',
          reason: `a document of ${oversized.bytes} bytes does not fit one Kinesis record (${MAX_KINESIS_RECORD_BYTES} bytes with its partition key)`,
        };
  }
}
