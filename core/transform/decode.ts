/**
 * Decoding of one raw Kinesis record written by a CloudWatch Logs subscription filter:
 * base64 -> (gzip, sniffed) -> JSON -> validated envelopes (one, or several concatenated).
 * Pure: no SDK, no environment, no I/O.
 *
 * CloudWatch Logs always gzips subscription payloads
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/SubscriptionFilters.html), but we sniff
 * the gzip magic bytes instead of assuming it so that plain JSON envelopes (tests, replays, other
 * producers) are accepted too.
 */
import { gunzipSync } from 'node:zlib';
import { DecodeLimits } from './types';
import { DecompressedSizeError, PoisonRecordError } from './errors';
import { isObject } from '../json';

/** Largest decompressed envelope accepted by default. CloudWatch sends at most ~1 MB compressed. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

/** One log event of a `DATA_MESSAGE` envelope, normalised (the id is always a string). */
export interface CloudWatchLogEvent {
  /** A 56-digit string from CloudWatch Logs; emulators (moto) send integers, which we turn into strings. */
  readonly id: string;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  readonly message: string;
  /** Present with cross-account centralization (`@aws.account`, `@aws.region`). */
  readonly extractedFields?: Readonly<Record<string, unknown>>;
}

/** The JSON envelope CloudWatch Logs writes to a subscription destination. */
export interface CloudWatchEnvelope {
  readonly messageType: 'DATA_MESSAGE' | 'CONTROL_MESSAGE';
  readonly owner: string;
  readonly logGroup: string;
  readonly logStream: string;
  readonly subscriptionFilters: readonly string[];
  readonly logEvents: readonly CloudWatchLogEvent[];
  /** `ACCOUNT_LEVEL_POLICY` when the subscription comes from an account-level policy. */
  readonly policyLevel?: string;
  /** Unknown envelope fields are tolerated (future additions) and kept here untouched. */
  readonly [field: string]: unknown;
}

/**
 * Log group and stream names are at most 512 characters in CloudWatch Logs
 * (https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_CreateLogGroup.html).
 * Capping them (and `owner`, the event id) guarantees a document's metadata always fits a Kinesis record.
 */
const MAX_NAME_LENGTH = 512;

const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

/**
 * Decodes and validates one record into its envelopes: one, as CloudWatch Logs writes it to a Kinesis stream, or
 * several when a producer concatenated them into one record (JSON objects back to back, or concatenated gzip
 * members, which gunzip to the same thing; Firehose-style aggregation and replays do this). Throws
 * `PoisonRecordError` (with a reason that says what is wrong) for anything that is not made of CloudWatch Logs
 * envelopes only; never throws anything else.
 *
 * @param data the record data as base64 text (event source mapping / Pipes `kinesis.data`) or raw bytes.
 */
export function decodeEnvelopes(data: string | Buffer, limits: DecodeLimits = {}): CloudWatchEnvelope[] {
  const maxBytes = limits.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  let bytes: Buffer;
  if (typeof data === 'string') bytes = decodeBase64(data);
  else if (Buffer.isBuffer(data)) bytes = data;
  // The handlers pass what the event carried; a malformed event may carry anything.
  else throw new PoisonRecordError(`record data is ${describe(data)}, not base64 text or bytes`);
  if (bytes.length === 0) throw new PoisonRecordError('empty record data');
  const text = decompress(bytes, maxBytes).toString('utf8');
  return parseEnvelopes(text);
}

/**
 * Node's base64 decoder silently skips characters outside the alphabet, so an invalid string
 * decodes to *something*. We detect that in O(1) instead of running a regex over megabytes: a valid
 * padded base64 string of length L decodes to exactly L / 4 * 3 - padding bytes.
 */
function decodeBase64(data: string): Buffer {
  if (data.length % 4 !== 0) throw new PoisonRecordError('not base64: length is not a multiple of 4');
  const bytes = Buffer.from(data, 'base64');
  let padding = 0;
  if (data.endsWith('==')) padding = 2;
  else if (data.endsWith('=')) padding = 1;
  const expected = (data.length / 4) * 3 - padding;
  if (bytes.length !== expected) throw new PoisonRecordError('not base64: unexpected characters');
  return bytes;
}

function decompress(bytes: Buffer, maxBytes: number): Buffer {
  if (bytes.length >= 2 && bytes[0] === GZIP_MAGIC_0 && bytes[1] === GZIP_MAGIC_1) {
    try {
      // maxOutputLength makes zlib stop and throw as soon as the output passes the cap, so a
      // gzip bomb costs at most `maxBytes` of memory, not its full decompressed size.
      return gunzipSync(bytes, { maxOutputLength: maxBytes });
    } catch (err) {
      if (isBufferTooLarge(err)) throw new DecompressedSizeError(maxBytes);
      throw new PoisonRecordError(`gzip: ${errorMessage(err)}`);
    }
  }
  if (bytes.length > maxBytes) throw new DecompressedSizeError(maxBytes);
  return bytes;
}

/**
 * zlib signals the cap with `ERR_BUFFER_TOO_LARGE`. Checked by code, not `instanceof`, because an
 * error from Node's internals is not an instance of the caller's `RangeError` under a VM context
 * (jest runs tests in one).
 */
function isBufferTooLarge(err: unknown): boolean {
  return (
    typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE'
  );
}

function parseEnvelopes(text: string): CloudWatchEnvelope[] {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    // The common case parses in one go; only a record that is not one JSON value pays for the scan.
    const parts = splitConcatenatedObjects(text);
    // Not concatenated objects either: JSON.parse gives the most precise reason, so we let it speak.
    if (parts === undefined) throw new PoisonRecordError(`not JSON: ${jsonErrorReason(err)}`);
    return parts.map((part, i) => {
      try {
        return validateEnvelope(JSON.parse(part) as unknown);
      } catch (partErr) {
        const reason =
          partErr instanceof PoisonRecordError ? partErr.message : `not JSON: ${jsonErrorReason(partErr)}`;
        // One bad part poisons the whole record: it is kept whole in the dead-letter place, never half-delivered.
        throw new PoisonRecordError(`concatenated envelope ${i + 1} of ${parts.length}: ${reason}`);
      }
    });
  }
  return [validateEnvelope(value)];
}

// Exactly the whitespace JSON allows between values.
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Splits text made of two or more top-level JSON objects back to back (optionally separated by whitespace) into
 * their texts, tracking strings and escapes so braces inside strings do not count. Returns undefined for anything
 * else (one object, a non-object value, stray characters between objects, an unterminated object): the caller then
 * reports JSON.parse's own error. O(n), no allocation beyond the slices.
 */
function splitConcatenatedObjects(text: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (depth === 0) {
      if (c === 0x7b) {
        depth = 1;
        start = i;
      } else if (!WHITESPACE.has(c)) {
        return undefined;
      }
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) parts.push(text.slice(start, i + 1));
    }
  }
  return depth === 0 && !inString && parts.length >= 2 ? parts : undefined;
}

const NOT_ENVELOPE = 'not a CloudWatch Logs envelope';

function validateEnvelope(value: unknown): CloudWatchEnvelope {
  if (!isObject(value)) throw new PoisonRecordError(`${NOT_ENVELOPE}: ${describe(value)}, not an object`);
  const messageType = value.messageType;
  if (messageType === undefined) throw new PoisonRecordError(`${NOT_ENVELOPE}: missing messageType`);
  if (messageType !== 'DATA_MESSAGE' && messageType !== 'CONTROL_MESSAGE') {
    throw new PoisonRecordError(`unknown messageType ${describeMessageType(messageType)}`);
  }
  if (messageType === 'CONTROL_MESSAGE') {
    // Control messages carry no user data; their fields are not needed, so we do not insist on them.
    return { ...value, messageType, logEvents: [] } as unknown as CloudWatchEnvelope;
  }
  for (const key of ['logGroup', 'logStream', 'owner'] as const) {
    const field = value[key];
    if (field === undefined) throw new PoisonRecordError(`${NOT_ENVELOPE}: missing ${key}`);
    if (typeof field !== 'string') throw new PoisonRecordError(`${NOT_ENVELOPE}: ${key} is not a string`);
    if (field.length > MAX_NAME_LENGTH) {
      throw new PoisonRecordError(`${NOT_ENVELOPE}: ${key} is longer than ${MAX_NAME_LENGTH} characters`);
    }
  }
  const logEvents = value.logEvents;
  if (logEvents === undefined) throw new PoisonRecordError(`${NOT_ENVELOPE}: missing logEvents`);
  if (!Array.isArray(logEvents)) throw new PoisonRecordError('logEvents is not an array');
  for (let i = 0; i < logEvents.length; i++) validateEvent(logEvents[i], i);
  if (value.subscriptionFilters === undefined) value.subscriptionFilters = [];
  return value as unknown as CloudWatchEnvelope;
}

/**
 * Validates one event in place. The id is normalised to a string (moto sends integers); the
 * object is mutated rather than copied because envelopes carry up to 10,000 events and this runs
 * for every one of them.
 */
function validateEvent(event: unknown, index: number): void {
  if (!isObject(event)) throw new PoisonRecordError(`logEvents[${index}] is not an object`);
  const { id, timestamp, message } = event;
  if (typeof id === 'number' && Number.isSafeInteger(id)) event.id = String(id);
  else if (typeof id !== 'string') throw new PoisonRecordError(`logEvents[${index}].id is not a string`);
  else if (id.length > MAX_NAME_LENGTH) {
    throw new PoisonRecordError(`logEvents[${index}].id is longer than ${MAX_NAME_LENGTH} characters`);
  }
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || Math.abs(timestamp) > 8.64e15) {
    throw new PoisonRecordError(`logEvents[${index}].timestamp is not a valid epoch-milliseconds number`);
  }
  if (typeof message !== 'string') throw new PoisonRecordError(`logEvents[${index}].message is not a string`);
  const extracted = event.extractedFields;
  if (extracted !== undefined) {
    if (!isObject(extracted))
      throw new PoisonRecordError(`logEvents[${index}].extractedFields is not an object`);
    for (const key of ['@aws.account', '@aws.region']) {
      const value = extracted[key];
      if (typeof value === 'string' && value.length > MAX_NAME_LENGTH) {
        throw new PoisonRecordError(
          `logEvents[${index}].extractedFields.${key} is longer than ${MAX_NAME_LENGTH} characters`,
        );
      }
    }
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

/**
 * A messageType as a reason may quote it: a short upper-case word as written (`"FOO"`), a number as written, anything
 * else by its type and length only (the record could hold anything there, and reasons are logged and stored).
 */
function describeMessageType(value: unknown): string {
  if (typeof value === 'string') {
    return /^[A-Z_]{1,32}$/.test(value) ? JSON.stringify(value) : `(a string of ${value.length} characters)`;
  }
  return typeof value === 'number' ? String(value) : `(${describe(value)})`;
}

/**
 * JSON.parse's message without the record's text: V8 quotes the start of what it could not parse (`Unexpected token
 * 'h', "hello, car"... is not valid JSON`), which can hold a secret, and reasons go to logs, dead-letter objects and
 * error documents. Positions and the one unexpected character are kept.
 */
export function jsonErrorReason(err: unknown): string {
  const message = errorMessage(err);
  if (!message.endsWith(' is not valid JSON')) return message;
  // `Unexpected token 'X', "<text>"... is not valid JSON`, or `"<text>" is not valid JSON`.
  const snippet = message.indexOf(', "');
  return snippet > 0 ? `${message.slice(0, snippet)} (not valid JSON)` : 'not valid JSON';
}

/** The message of anything thrown, whichever realm its Error class came from. */
export function errorMessage(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const message = (err as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return String(err);
}
