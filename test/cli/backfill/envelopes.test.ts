/**
 * The envelopes `kfek backfill` writes are what CloudWatch Logs writes: the transform decodes them, and an event
 * backfilled gives the same document (and document id) as the same event delivered by the live subscription.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { MAX_KINESIS_RECORD_BYTES } from '../../../core/contracts/aws-limits';
import { documentIdFor } from '../../../core/opensearch/ingest-pipeline';
import { decodeEnvelopes } from '../../../core/transform/decode';
import { toDocument } from '../../../core/transform/document';
import { historicEvents } from '../../helpers/backfill-fakes';
import { buildEnvelopes } from '../../../core/logs/envelopes';
import type { GroupSource, HistoricLogEvent } from '../../../core/logs/model';

const SOURCE: GroupSource = {
  logGroup: '/aws/lambda/checkout',
  owner: '123456789012',
  subscriptionFilters: ['kfek-sandbox@eu-west-1'],
};

const decode = (data: Uint8Array): unknown => JSON.parse(gunzipSync(data).toString('utf8'));

/** `n` bytes gzip cannot shrink, as base64 text: SHA-256 in counter mode, the same on every run. */
function noise(n: number, seed: number): string {
  const blocks: Buffer[] = [];
  for (let i = 0; i * 32 < n; i++) blocks.push(createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(blocks).subarray(0, n).toString('base64');
}

describe('buildEnvelopes', () => {
  test('writes exactly the fields, order and types of a CloudWatch Logs DATA_MESSAGE', () => {
    // GIVEN two events of one stream, one with characters JSON must escape
    const events: HistoricLogEvent[] = [
      {
        id: '38480917865042697267627490045603633139480491071049695232',
        timestamp: 1795424400123,
        message: 'a "quoted"\nline',
        logStream: 's',
      },
      {
        id: '38480917865042697267627490045603633139480491071049695233',
        timestamp: 1795424400124,
        message: 'ünïcode ✓',
        logStream: 's',
      },
    ];
    // WHEN
    const { records, oversized } = buildEnvelopes(SOURCE, events);
    // THEN one gzip record, whose JSON is the service's shape, field by field and in its order
    expect(oversized).toEqual([]);
    expect(records).toHaveLength(1);
    expect(records[0].data[0]).toBe(0x1f);
    expect(records[0].data[1]).toBe(0x8b);
    const text = gunzipSync(records[0].data).toString('utf8');
    expect(Object.keys(JSON.parse(text) as object)).toEqual([
      'messageType',
      'owner',
      'logGroup',
      'logStream',
      'subscriptionFilters',
      'logEvents',
    ]);
    expect(JSON.parse(text)).toEqual({
      messageType: 'DATA_MESSAGE',
      owner: '123456789012',
      logGroup: '/aws/lambda/checkout',
      logStream: 's',
      subscriptionFilters: ['kfek-sandbox@eu-west-1'],
      logEvents: events.map((e) => ({ id: e.id, timestamp: e.timestamp, message: e.message })),
    });
    expect(records[0]).toMatchObject({
      events: 2,
      firstTimestamp: 1795424400123,
      lastTimestamp: 1795424400124,
    });
    expect(records[0].messageBytes).toBe(
      Buffer.byteLength('a "quoted"\nline') + Buffer.byteLength('ünïcode ✓'),
    );
    expect(records[0].partitionKey).toMatch(/^[0-9a-f]{64}$/);
  });

  test('the transform decodes a backfilled envelope into the documents the live subscription gives, ids included', () => {
    // GIVEN the envelope moto's subscription wrote for two events (integer ids, its JSON spacing) and the same events as
    // FilterLogEvents returns them (the ids as text)
    const live = gzipSync(
      JSON.stringify({
        logEvents: [
          {
            id: 41,
            timestamp: 1795424400000,
            message: '{"level":"ERROR","message":"payment declined","orderId":42}',
          },
          { id: 42, timestamp: 1795424400001, message: 'REPORT RequestId: 8f5e Duration: 9.14 ms' },
        ],
        logGroup: SOURCE.logGroup,
        logStream: '2026/11/23/[$LATEST]abc',
        messageType: 'DATA_MESSAGE',
        owner: SOURCE.owner,
        subscriptionFilters: SOURCE.subscriptionFilters,
      }),
    );
    const historic: HistoricLogEvent[] = [
      {
        id: '41',
        timestamp: 1795424400000,
        message: '{"level":"ERROR","message":"payment declined","orderId":42}',
        logStream: '2026/11/23/[$LATEST]abc',
      },
      {
        id: '42',
        timestamp: 1795424400001,
        message: 'REPORT RequestId: 8f5e Duration: 9.14 ms',
        logStream: '2026/11/23/[$LATEST]abc',
      },
    ];
    // WHEN both are decoded by the transform and shaped into documents
    const documents = (data: Uint8Array): unknown[] =>
      decodeEnvelopes(Buffer.from(data)).flatMap((envelope) =>
        envelope.logEvents.map((event) => toDocument(event, envelope)),
      );
    const backfilled = documents(buildEnvelopes(SOURCE, historic).records[0].data);
    // THEN the documents are identical, so are the ids the index's pipeline derives from them
    expect(backfilled).toEqual(documents(live));
    const ids = (docs: unknown[]): string[] =>
      docs.map((d) => {
        const cw = (d as { cloudwatch: { logGroup: string; logStream: string; id: string } }).cloudwatch;
        return documentIdFor(cw.logGroup, cw.logStream, cw.id);
      });
    expect(ids(backfilled)).toEqual(ids(documents(live)));
    expect((backfilled[0] as { cloudwatch: { region?: string } }).cloudwatch.region).toBe('eu-west-1');
  });

  test("one envelope per log stream, each stream's events in page order", () => {
    const events = historicEvents(30, { start: 1_000, streams: 3 });
    const { records } = buildEnvelopes(SOURCE, events);
    expect(records.map((r) => r.logStream)).toEqual(['stream-0', 'stream-1', 'stream-2']);
    for (const record of records) {
      const logEvents = (decode(record.data) as { logEvents: { id: string }[] }).logEvents;
      expect(logEvents.map((e) => e.id)).toEqual(
        events.filter((e) => e.logStream === record.logStream).map((e) => e.id),
      );
    }
  });

  test('keeps to the events limit and the JSON limit, and every record fits Kinesis', () => {
    const events = historicEvents(2_500, { start: 1_000, message: (i) => `line ${i} ${'x'.repeat(500)}` });
    const byCount = buildEnvelopes(SOURCE, events, { maxEvents: 1_000 }).records;
    expect(byCount.map((r) => r.events)).toEqual([1_000, 1_000, 500]);
    const bySize = buildEnvelopes(SOURCE, events, { maxJsonBytes: 100_000 }).records;
    for (const record of bySize) {
      expect(gunzipSync(record.data).length).toBeLessThanOrEqual(100_000);
    }
    expect(bySize.reduce((s, r) => s + r.events, 0)).toBe(2_500);
    // The defaults: 10,000 events and 1 MiB - 4 KiB of JSON, so incompressible text still fits a record.
    const random = historicEvents(3_000, { start: 1_000, message: (i) => noise(600, i) });
    const full = buildEnvelopes(SOURCE, random).records;
    expect(full.length).toBeGreaterThan(1);
    for (const record of full) {
      expect(record.data.length + record.partitionKey.length).toBeLessThanOrEqual(MAX_KINESIS_RECORD_BYTES);
      expect(gunzipSync(record.data).length).toBeLessThanOrEqual(MAX_KINESIS_RECORD_BYTES - 4096);
    }
  });

  test('an event too large for a record even alone is reported, never cut, and its neighbours still go', () => {
    // GIVEN an event of 1.5 MB of text gzip cannot shrink below 1 MiB
    const big = noise(1_200_000, 0);
    const events: HistoricLogEvent[] = [
      { id: '1', timestamp: 1, message: 'before', logStream: 's' },
      { id: '2', timestamp: 2, message: big, logStream: 's' },
      { id: '3', timestamp: 3, message: 'after', logStream: 's' },
    ];
    // WHEN
    const { records, oversized } = buildEnvelopes(SOURCE, events);
    // THEN
    expect(oversized.map((o) => o.event.id)).toEqual(['2']);
    expect(
      records.map((r) => (decode(r.data) as { logEvents: { id: string }[] }).logEvents.map((e) => e.id)),
    ).toEqual([['1'], ['3']]);
  });
});
