/**
 * Decoding and validation: every poison reason, the gzip bomb, tolerated envelope variants.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildSync } from 'esbuild';
import { decodeEnvelopes, DEFAULT_MAX_DECOMPRESSED_BYTES } from '../../../core/transform/decode';
import { DecompressedSizeError, PoisonRecordError, TransformError } from '../../../core/transform/errors';
import { transformRecord } from '../../../core/transform/transform';
import { encodeEnvelope, makeEnvelope, makeLogEvents } from '../../helpers/cloudwatch';

function poisonReason(data: string | Buffer, limits?: { maxDecompressedBytes?: number }): string {
  const outcome = transformRecord(data, limits);
  if (outcome.kind !== 'poison') throw new Error(`expected poison, got ${outcome.kind}`);
  return outcome.reason;
}

/** The single envelope of a record (CloudWatch Logs writes one per Kinesis record). */
function decodeEnvelope(data: string | Buffer): ReturnType<typeof decodeEnvelopes>[number] {
  const envelopes = decodeEnvelopes(data);
  expect(envelopes).toHaveLength(1);
  return envelopes[0];
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const gz64 = (text: string): string => gzipSync(Buffer.from(text, 'utf8')).toString('base64');

describe('decodeEnvelope accepts', () => {
  it('a gzipped envelope (what CloudWatch Logs sends)', () => {
    const envelope = makeEnvelope();
    expect(decodeEnvelope(encodeEnvelope(envelope))).toEqual(envelope);
  });

  it('a plain JSON envelope, sniffed rather than assumed', () => {
    const envelope = makeEnvelope();
    expect(decodeEnvelope(encodeEnvelope(envelope, { gzip: false }))).toEqual(envelope);
  });

  it('already-decoded bytes, gzipped or not', () => {
    const envelope = makeEnvelope();
    expect(decodeEnvelope(gzipSync(JSON.stringify(envelope)))).toEqual(envelope);
    expect(decodeEnvelope(Buffer.from(JSON.stringify(envelope)))).toEqual(envelope);
  });

  it('unknown envelope fields (policyLevel, future ones), kept untouched', () => {
    const decoded = decodeEnvelope(
      encodeEnvelope({ ...makeEnvelope(), policyLevel: 'ACCOUNT_LEVEL_POLICY', someFutureField: { a: 1 } }),
    );
    expect(decoded.policyLevel).toBe('ACCOUNT_LEVEL_POLICY');
    expect(decoded.someFutureField).toEqual({ a: 1 });
  });

  it('unknown log event fields', () => {
    const envelope = { ...makeEnvelope(), logEvents: [{ ...makeLogEvents(1)[0], futureField: true }] };
    const outcome = transformRecord(encodeEnvelope(envelope));
    expect(outcome.kind).toBe('data');
  });

  it('an empty logEvents array: data with no documents and no decisions', () => {
    const outcome = transformRecord(encodeEnvelope(makeEnvelope({ logEvents: [] })));
    // The outcome reads its decisions lazily (a getter), so its fields are compared, not its shape.
    expect(outcome.kind).toBe('data');
    expect(outcome.kind === 'data' ? [outcome.documents, outcome.decisions] : undefined).toEqual([[], []]);
  });

  it('integer event ids (moto) as strings', () => {
    const envelope = { ...makeEnvelope(), logEvents: [{ id: 7, timestamp: 1, message: 'm' }] };
    expect(decodeEnvelope(encodeEnvelope(envelope)).logEvents[0].id).toBe('7');
  });

  it('envelopes without subscriptionFilters', () => {
    const { subscriptionFilters: _omitted, ...envelope } = makeEnvelope();
    expect(decodeEnvelope(encodeEnvelope(envelope)).subscriptionFilters).toEqual([]);
  });

  it('a CONTROL_MESSAGE, which transformRecord reports as control', () => {
    const control = { ...makeEnvelope({ owner: 'CloudwatchLogs' }), messageType: 'CONTROL_MESSAGE' };
    expect(transformRecord(encodeEnvelope(control))).toEqual({ kind: 'control' });
  });
});

describe('poison reasons', () => {
  it.each([
    ['abc', 'not base64: length is not a multiple of 4'],
    ['ab!d', 'not base64: unexpected characters'],
    ['{"a":"DATA"}', 'not base64: unexpected characters'],
    ['', 'empty record data'],
  ])('%j is poison: %s', (data, reason) => {
    expect(poisonReason(data)).toBe(reason);
  });

  it('truncated gzip: gzip: unexpected end of file', () => {
    const gz = gzipSync(JSON.stringify(makeEnvelope()));
    expect(poisonReason(gz.subarray(0, gz.length - 10).toString('base64'))).toBe(
      'gzip: unexpected end of file',
    );
  });

  it('corrupted gzip: names zlib error', () => {
    const gz = gzipSync(JSON.stringify(makeEnvelope()));
    gz[gz.length - 5] ^= 0xff; // the CRC32/ISIZE trailer
    expect(poisonReason(gz.toString('base64'))).toMatch(/^gzip: /);
  });

  it('not JSON: says what JSON.parse said', () => {
    expect(poisonReason(b64('hello'))).toMatch(/^not JSON: Unexpected token/);
    expect(poisonReason(gz64('{"messageType":'))).toMatch(/^not JSON: /);
  });

  it.each([
    ['[1,2]', 'not a CloudWatch Logs envelope: an array, not an object'],
    ['"text"', 'not a CloudWatch Logs envelope: a string, not an object'],
    ['null', 'not a CloudWatch Logs envelope: null, not an object'],
    ['{}', 'not a CloudWatch Logs envelope: missing messageType'],
    ['{"messageType":"X"}', 'unknown messageType "X"'],
    ['{"messageType":42}', 'unknown messageType 42'],
  ])('%s is poison: %s', (json, reason) => {
    expect(poisonReason(gz64(json))).toBe(reason);
  });

  const base = makeEnvelope() as unknown as Record<string, unknown>;
  const withField = (key: string, value: unknown): string => gz64(JSON.stringify({ ...base, [key]: value }));
  const without = (key: string): string => {
    const copy = { ...base };
    delete copy[key];
    return gz64(JSON.stringify(copy));
  };

  it.each(['logGroup', 'logStream', 'owner', 'logEvents'])('missing %s', (key) => {
    expect(poisonReason(without(key))).toBe(`not a CloudWatch Logs envelope: missing ${key}`);
  });

  it.each(['logGroup', 'logStream', 'owner'])('%s not a string', (key) => {
    expect(poisonReason(withField(key, 12))).toBe(`not a CloudWatch Logs envelope: ${key} is not a string`);
  });

  it('a log group name longer than CloudWatch allows', () => {
    expect(poisonReason(withField('logGroup', 'g'.repeat(513)))).toBe(
      'not a CloudWatch Logs envelope: logGroup is longer than 512 characters',
    );
  });

  it('logEvents is not an array', () => {
    expect(poisonReason(withField('logEvents', { 0: {} }))).toBe('logEvents is not an array');
  });

  const event = makeLogEvents(1)[0];
  it.each([
    [[event, 'text'], 'logEvents[1] is not an object'],
    [[{ ...event, id: null }], 'logEvents[0].id is not a string'],
    [[{ ...event, id: 1e21 }], 'logEvents[0].id is not a string'],
    [
      [{ ...event, timestamp: '1700000000000' }],
      'logEvents[0].timestamp is not a valid epoch-milliseconds number',
    ],
    [[{ ...event, timestamp: 1e17 }], 'logEvents[0].timestamp is not a valid epoch-milliseconds number'],
    [[{ ...event, message: { a: 1 } }], 'logEvents[0].message is not a string'],
    [[{ ...event, extractedFields: 'x' }], 'logEvents[0].extractedFields is not an object'],
  ])('bad event %j: %s', (logEvents, reason) => {
    expect(poisonReason(withField('logEvents', logEvents))).toBe(reason);
  });

  it('data that is neither text nor bytes', () => {
    expect(poisonReason(undefined as unknown as string)).toBe(
      'record data is undefined, not base64 text or bytes',
    );
    expect(poisonReason({} as unknown as string)).toBe('record data is an object, not base64 text or bytes');
  });

  it('an uncompressed envelope over the limit', () => {
    const data = encodeEnvelope(makeEnvelope({}, [{ message: 'x'.repeat(2000) }]), { gzip: false });
    expect(poisonReason(data, { maxDecompressedBytes: 1024 })).toBe('decompressed size exceeds 1 KiB');
  });
});

describe('gzip bombs', () => {
  /** 200 MB of zeros as 200 concatenated gzip members (a valid multi-member gzip stream) of ~1 KB each. */
  function bomb(): Buffer {
    const member = gzipSync(Buffer.alloc(1024 * 1024));
    return Buffer.concat(Array.from({ length: 200 }, () => member));
  }

  it('are poison at the default 64 MiB limit', () => {
    // GIVEN 200 MB of zeros in under 300 KB
    const data = bomb();
    expect(data.length).toBeLessThan(300 * 1024);
    // WHEN
    const reason = poisonReason(data.toString('base64'));
    // THEN (the memory bound is measured in a fresh process below; speed is a benchmark's business, not a timed
    // unit test's)
    expect(reason).toBe('decompressed size exceeds 64 MiB');
  });

  it('never hold more than the limit while decompressing a bomb (measured in a fresh process)', () => {
    // GIVEN the transform entry point bundled on its own, run in a child process whose peak RSS is this decode's
    // alone (in a jest worker, the peak RSS of earlier test files would hide or fake the growth)
    const dir = mkdtempSync(join(tmpdir(), 'kfek-bomb-'));
    try {
      const entry = join(dir, 'transform.js');
      buildSync({
        entryPoints: [join(__dirname, '..', '..', '..', 'core', 'transform', 'transform.ts')],
        bundle: true,
        platform: 'node',
        format: 'cjs',
        outfile: entry,
        logLevel: 'silent',
      });
      const child = `
        const { gzipSync } = require('node:zlib');
        const { existsSync, readFileSync } = require('node:fs');
        // VmHWM is this process image's own peak RSS; getrusage's maxRSS also counts the parent's memory copied
        // at fork, which is the jest worker's whole heap.
        const peak = () => existsSync('/proc/self/status')
          ? Number(/VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024
          : process.resourceUsage().maxRSS * 1024;
        const { transformRecord } = require(${JSON.stringify(entry)});
        const member = gzipSync(Buffer.alloc(1024 * 1024));
        const data = Buffer.concat(Array.from({ length: 200 }, () => member)).toString('base64');
        const before = process.memoryUsage().rss;
        const outcome = transformRecord(data);
        const peakAfter = peak();
        process.stdout.write(JSON.stringify({ reason: outcome.reason, before, peakAfter }));
      `;
      // WHEN
      const run = spawnSync(process.execPath, ['-e', child], { encoding: 'utf8', timeout: 30_000 });
      // THEN
      expect(run.stderr).toBe('');
      const m = JSON.parse(run.stdout) as {
        reason: string;
        before: number;
        peakBefore: number;
        peakAfter: number;
      };
      expect(m.reason).toBe('decompressed size exceeds 64 MiB');
      // zlib stops at the cap, so the process never holds the full 200 MB. (An earlier peak, e.g. building the bomb,
      // can only make this growth look larger, never smaller: it cannot hide a missing cap.)
      expect(m.peakAfter - m.before).toBeLessThan(DEFAULT_MAX_DECOMPRESSED_BYTES + 64 * 1024 * 1024);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are cut at a caller-chosen limit too', () => {
    expect(poisonReason(bomb(), { maxDecompressedBytes: 1024 * 1024 })).toBe(
      'decompressed size exceeds 1 MiB',
    );
  });
});

describe('errors', () => {
  it('are typed, named and share one base', () => {
    const size = new DecompressedSizeError(1000);
    expect(size).toBeInstanceOf(PoisonRecordError);
    expect(size).toBeInstanceOf(TransformError);
    expect(size.name).toBe('DecompressedSizeError');
    expect(size.message).toBe('decompressed size exceeds 1000 bytes');
    expect(new PoisonRecordError('x').name).toBe('PoisonRecordError');
  });

  it('decodeEnvelope throws PoisonRecordError (transformRecord turns it into an outcome)', () => {
    expect(() => decodeEnvelope('abc')).toThrow(PoisonRecordError);
  });
});

describe('concatenated envelopes in one record', () => {
  const first = makeEnvelope({ logGroup: '/first', logStream: 's1', logEvents: makeLogEvents(2) });
  const second = makeEnvelope({ logGroup: '/second', logStream: 's2', logEvents: makeLogEvents(3) });
  const control = {
    messageType: 'CONTROL_MESSAGE',
    owner: 'CloudwatchLogs',
    logGroup: '',
    logStream: '',
    subscriptionFilters: [],
    logEvents: [
      {
        id: '',
        timestamp: 1,
        message: 'CWL CONTROL MESSAGE: Checking health of destination Kinesis stream.',
      },
    ],
  };

  function documentsOf(data: string | Buffer): Array<Record<string, unknown>> {
    const outcome = transformRecord(data);
    if (outcome.kind !== 'data') throw new Error(`expected data, got ${JSON.stringify(outcome)}`);
    return outcome.documents.map((d) => JSON.parse(d.json) as Record<string, unknown>);
  }

  it("back-to-back JSON objects give every envelope's documents, in order, each with its own metadata and key", () => {
    // GIVEN: pretty-printed objects separated by a newline, and compact ones with nothing between them
    for (const text of [
      `${JSON.stringify(first, null, 2)}\n${JSON.stringify(second, null, 2)}\n`,
      `${JSON.stringify(first)}${JSON.stringify(second)}`,
    ]) {
      // WHEN
      const outcome = transformRecord(gz64(text));
      // THEN
      if (outcome.kind !== 'data') throw new Error(outcome.kind);
      const metadata = outcome.documents.map((d) => {
        const { logGroup, id } = (JSON.parse(d.json) as { cloudwatch: { logGroup: string; id: string } })
          .cloudwatch;
        return `${logGroup} ${id}`;
      });
      expect(metadata).toEqual([
        ...first.logEvents.map((e) => `/first ${e.id}`),
        ...second.logEvents.map((e) => `/second ${e.id}`),
      ]);
      expect(new Set(outcome.documents.map((d) => d.partitionKey)).size).toBe(2);
    }
  });

  it('concatenated gzip members (each envelope gzipped on its own) decode the same way', () => {
    const data = Buffer.concat([gzipSync(JSON.stringify(first)), gzipSync(JSON.stringify(second))]).toString(
      'base64',
    );
    expect(documentsOf(data)).toHaveLength(5);
  });

  it('braces and quotes inside strings do not split an envelope', () => {
    const tricky = makeEnvelope({ logEvents: [{ id: '1', timestamp: 1, message: '}{"a":"\\"}{"} ] [' }] });
    const docs = documentsOf(b64(`${JSON.stringify(tricky)} ${JSON.stringify(first)}`));
    expect(docs.map((d) => d.message)).toEqual([
      '}{"a":"\\"}{"} ] [',
      ...first.logEvents.map((e) => e.message),
    ]);
  });

  it('a CONTROL_MESSAGE among them gives nothing; only control messages give control', () => {
    expect(documentsOf(b64(`${JSON.stringify(control)}\n${JSON.stringify(first)}`))).toHaveLength(2);
    expect(transformRecord(b64(`${JSON.stringify(control)}${JSON.stringify(control)}`))).toEqual({
      kind: 'control',
    });
  });

  it('one part that is not an envelope poisons the whole record, saying which part and why', () => {
    // GIVEN: the OpenTelemetry collector's fixture, a stock-ticker object between two envelopes
    const text = `${JSON.stringify(first)}\n{"CHANGE":1.96,"PRICE":57.53,"TICKER_SYMBOL":"SAC"}\n${JSON.stringify(second)}`;
    // THEN
    expect(poisonReason(gz64(text))).toBe(
      'concatenated envelope 2 of 3: not a CloudWatch Logs envelope: missing messageType',
    );
  });

  it('stray text between objects, an unterminated object or a trailing value is still "not JSON"', () => {
    for (const text of [
      `${JSON.stringify(first)} x ${JSON.stringify(second)}`,
      `${JSON.stringify(first)}{"messageType":"DATA_MESSAGE"`,
      `${JSON.stringify(first)} 42`,
      `${JSON.stringify(first)} [1]`,
    ]) {
      expect(poisonReason(b64(text))).toMatch(/^not JSON: /);
    }
  });
});
