/**
 * What `kfek replay` works on: the kinds of data kfek keeps when something fails, one {@link KeptItem} per thing
 * that can be re-sent on its own, and where each kind goes back to.
 */
import type { KinesisRecord } from '../kinesis/limits';

/**
 * - `dead-letter`: a raw record the transform could not decode (lambda/transform/dead-letter.ts), data included;
 * - `discarded-batch`: a batch the Lambda event source mapping gave up on (its S3 on-failure destination,
 *   `aws/lambda/`), with the records when the invocation record carries them, else their sequence-number range;
 * - `failed-document`: a document OpenSearch refused, from Firehose's S3 backup (one per JSON line);
 * - `pipes-dlq`: a batch the pipe gave up on (its SQS dead-letter queue): metadata, so a sequence-number range.
 */
export const KEPT_KINDS = ['dead-letter', 'discarded-batch', 'failed-document', 'pipes-dlq'] as const;
export type KeptKind = (typeof KEPT_KINDS)[number];

/**
 * Not a kept kind: the events stream's own records of a time window, re-put for a delivery stream created after
 * them (cli/replay/events-window.ts). Never part of the default "every kind".
 */
export const EVENTS_WINDOW_KIND = 'events-window';

/** The stream a kind goes back to: raw records to the raw stream, documents to the events stream. */
export type ReplayTarget = 'raw' | 'events';

export const TARGET_OF: Readonly<Record<KeptKind, ReplayTarget>> = {
  'dead-letter': 'raw',
  'discarded-batch': 'raw',
  'failed-document': 'events',
  'pipes-dlq': 'raw',
};

/** One Kinesis record to put back, exactly as it was. */
export type ReplayRecord = KinesisRecord;

/** Records that are no longer kept anywhere but in the raw stream, as long as its retention lasts. */
export interface StreamRange {
  /** The stream the batch was read from; absent when the kept metadata does not say (then `--raw-stream`). */
  readonly streamArn?: string;
  readonly shardId: string;
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
  /** Records in the range, when the metadata says. */
  readonly batchSize?: number;
}

export type KeptContent =
  | { readonly type: 'records'; readonly records: readonly ReplayRecord[] }
  | { readonly type: 'range'; readonly range: StreamRange };

/** The object, file or message an item was read from: what `--delete-after` would delete. */
export interface KeptContainer {
  /** `s3://bucket/key`, a file path, or `sqs://<queue>/<message id>`: printed to the user. */
  readonly location: string;
  /** The store's own handle (key, path or receipt handle). */
  readonly handle: string;
  readonly sizeBytes: number;
}

export interface KeptItem {
  readonly kind: KeptKind;
  readonly container: KeptContainer;
  /** When it was kept (or failed), if the data says. */
  readonly at?: Date;
  /** Why it was kept: the transform's reason, the mapping's condition, OpenSearch's error. */
  readonly reason: string;
  readonly content: KeptContent;
  /** Bytes of record data (for a range: 0, unknown until read). */
  readonly dataBytes: number;
  /**
   * The streams the object says its records came from (stream ARNs, or names): a dead letter's `source.streamArn`,
   * a batch's `streamArn` and its records' `eventSourceARN`. Replay takes an item back only to the raw stream it
   * names, and reads only that stream. @default - none named
   */
  readonly namedStreams?: readonly string[];
}

/** Something under a kept prefix that could not be read as its kind: reported, never deleted. */
export interface KeptProblem {
  readonly location: string;
  readonly message: string;
}

/** Records an item stands for: exact for records, the metadata's batch size (or 0 when unknown) for a range. */
export function recordCountOf(item: KeptItem): number {
  return item.content.type === 'records' ? item.content.records.length : (item.content.range.batchSize ?? 0);
}
