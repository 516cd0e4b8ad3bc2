/**
 * The contract between the pure transform core (decode, parse, shape, serialize) and the two
 * thin handlers (Kinesis event source mapping, EventBridge Pipes enrichment).
 *
 * Nothing in this file does I/O. The document schema is a public contract documented in docs/schema.md.
 */

/** CloudWatch Logs metadata carried on every document under `cloudwatch`. */
export interface CloudWatchMetadata {
  /** The event id as a string (real envelopes carry 56-digit strings; moto sends integers). */
  readonly id: string;
  readonly logGroup: string;
  readonly logStream: string;
  /** The account that owns the log group (`owner` in the envelope). */
  readonly owner: string;
  /** From `extractedFields['@aws.account']` when present (cross-account centralization). */
  readonly account?: string;
  /** From `extractedFields['@aws.region']` when present. */
  readonly region?: string;
}

/** kfek's own bookkeeping on a document. */
export interface KfekMetadata {
  /** Set when `message` was cut to fit one Kinesis record. */
  readonly truncated?: true;
  /** UTF-8 size of the serialized document before truncation. */
  readonly originalBytes?: number;
  /** Present on error documents (Pipes path) only. */
  readonly error?: {
    readonly reason: string;
    /** The raw record data (base64, as received), capped: a preview; `deadLetter` keeps it whole. */
    readonly data: string;
    /** True when `data` was cut. */
    readonly dataTruncated?: true;
    /** The dead-letter object that keeps the whole record (S3 bucket and key). */
    readonly deadLetter?: { readonly bucket: string; readonly key: string };
  };
  /**
   * Pipes items only: the events-stream partition key the pipe's target reads (`$.kfek.partitionKey`), the same
   * one the Kinesis handler uses for the document's record.
   */
  readonly partitionKey?: string;
  /** Where an app field that collided with a reserved top-level key was moved to, if any. */
  readonly [key: string]: unknown;
}

/** One OpenSearch document: one CloudWatch log event. App fields sit at the top level. */
export interface LogDocument {
  readonly '@timestamp': string;
  readonly message: string;
  readonly cloudwatch: CloudWatchMetadata;
  readonly kfek?: KfekMetadata;
  readonly [field: string]: unknown;
}

/** A document ready for PutRecords: serialized once, measured in exact UTF-8 bytes. */
export interface SerializedDocument {
  /** The JSON text written as the Kinesis record data. */
  readonly json: string;
  /** `Buffer.byteLength(json, 'utf8')`. */
  readonly bytes: number;
  /** Derived from log group and log stream (keeps per-stream order), at most 256 characters. */
  readonly partitionKey: string;
  /** True when the message was cut to fit a Kinesis record (core/contracts/aws-limits.ts) with the partition key. */
  readonly truncated: boolean;
  /**
   * Set when a number in `json` is written in a form JavaScript writes differently (`1.0`, `-0`, integers beyond
   * 2^53; app-json.ts): whoever parses the document and serializes it again must keep those numbers' source text
   * to give the same text (pipes-batch.ts).
   */
  readonly numbersAsWritten?: true;
}

/** What a route's processing did to a record's events (docs/teams-and-routes.md). */
export interface ProcessingCounts {
  /** Values replaced by a masking marker. */
  readonly maskedValues: number;
  /** Events a drop rule kept out, by rule name. */
  readonly droppedByRule: Readonly<Record<string, number>>;
  /** Continuation lines joined into the event before them. */
  readonly joinedLines: number;
}

/*
 * What the transform decided for each input event (decisions.ts builds them; docs/transform-runtime.md "What the core
 * decided, per event").
 */

/** The part of a join too long for one document (`kfek.part` of `kfek.partOf`). */
export interface JoinPart {
  /** 1 for the join's first document. */
  readonly number: number;
  /** The id of the join's first event. */
  readonly of: string;
}

/** The envelope an event came in, as its decision names it (not the envelope, which holds every message). */
export interface DecisionSource {
  readonly logGroup: string;
  readonly logStream: string;
  readonly owner: string;
}

/** What every decision says of its event: which it is, and where it was routed. */
interface DecidedEvent {
  /** The event's id (`cloudwatch.id`). */
  readonly eventId: string;
  /** The envelope it came in. */
  readonly source: DecisionSource;
  /** The account it comes from (`@aws.account` when present, else the envelope's owner): what chose its route. */
  readonly account: string;
  /** Its route's name (`kfek.route`); undefined for the default route. */
  readonly route?: string;
  /** Its route's index stem (`kfek.stem`); undefined for the default route or a route that names none. */
  readonly stem?: string;
}

export interface KeptEvent extends DecidedEvent {
  readonly kind: 'kept';
  /** Its document's position in the outcome's `documents`. */
  readonly document: number;
  /** True when its route's masking replaced at least one value of its document. */
  readonly masked: boolean;
  /** True when its document's `message` was cut to fit one record (`kfek.truncated`). */
  readonly truncated: boolean;
  /** Lines of later events joined into its document (`kfek.joined`); 0 for most. */
  readonly joined: number;
  /** Set when its document is one part of a join too long for one document. */
  readonly part?: JoinPart;
}

export interface JoinedEvent extends DecidedEvent {
  readonly kind: 'joined';
  /** The id of the event whose document holds this event's line. */
  readonly into: string;
  /** That document's position in the outcome's `documents`. */
  readonly document: number;
  /** Set when that document is one part of a join too long for one document. */
  readonly part?: JoinPart;
}

export interface DroppedEvent extends DecidedEvent {
  readonly kind: 'dropped';
  /** The name of the drop rule the document met (the first of its route's rules that matched). */
  readonly rule: string;
  /** Set for a continuation line: the event whose document it was joined into, dropped with it. */
  readonly into?: string;
}

export type EventDecision = KeptEvent | JoinedEvent | DroppedEvent;

/** What one raw (subscription) Kinesis record turned into. */
export type RecordOutcome =
  | {
      readonly kind: 'data';
      readonly documents: readonly SerializedDocument[];
      /** What the routes' processing did to the record's events; absent when it did nothing. */
      readonly processing?: ProcessingCounts;
      /**
       * What became of each log event of the record's `DATA_MESSAGE`s, in order (decisions.ts): kept, joined or
       * dropped, with its route, stem, document and rule. Absent only when the caller asked for none
       * (`TransformOptions.decide: false`).
       */
      readonly decisions?: readonly EventDecision[];
    }
  | { readonly kind: 'control' }
  | { readonly kind: 'poison'; readonly reason: string };

/** Limits the core enforces while decoding. */
export interface DecodeLimits {
  /**
   * Largest decompressed envelope accepted; larger is poison (a gzip bomb must not take the function down).
   * @default 64 MiB
   */
  readonly maxDecompressedBytes?: number;
}
