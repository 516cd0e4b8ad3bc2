/**
 * The volume table of docs/costs.md is the output of scripts/cost-table.ts: its arithmetic is checked here against
 * figures worked out by hand, and the page must carry exactly the table the script prints.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownTableCells } from '../helpers/doc-snippets';
import { SERVERLESS_ASSUMPTIONS } from '../../core/contracts/cost-model';
import {
  ASSUMPTIONS,
  costTable,
  deliveryCosts,
  deliveryTable,
  LIMITS,
  PRICES,
  scenarioCosts,
} from '../../scripts/cost-table';

describe('cost table', () => {
  test('one record per 300-byte event: Firehose bills 5 KB per event, about 16x the log volume', () => {
    // GIVEN 100 GB/day of 300-byte events
    const c = scenarioCosts({ gbPerDay: 100, eventBytes: 300 });
    // THEN
    const events = (100 * 2 ** 30) / 300;
    expect(c.eventsPerDay).toBeCloseTo(events, 0);
    expect(c.before.firehoseBilledGbPerDay).toBeCloseTo((events * 5120) / 2 ** 30, 6);
    expect(c.before.firehosePerMonth).toBeCloseTo(((events * 5120) / 2 ** 30) * 30 * PRICES.firehosePerGb, 6);
    expect(c.before.firehoseBilledGbPerDay / 100).toBeCloseTo(5120 / 300, 6);
    // 4,143 events/s at twice the average is 8,286 records/s: 9 shards by the 1,000 records/s limit.
    expect(c.before.eventsShards).toBe(9);
  });

  test('aggregated: documents per record are bounded by the batch per partition key, and by 1 MiB', () => {
    // GIVEN a 300-byte event (550-byte document, 583 bytes on the events stream with kfek.arrival) and a 500 KB one
    const small = scenarioCosts({ gbPerDay: 100, eventBytes: 300 });
    const large = scenarioCosts({ gbPerDay: 100, eventBytes: 500_000 });
    // THEN
    expect(small.after.documentsPerRecord).toBe(ASSUMPTIONS.documentsPerStreamPerBatch);
    expect(large.after.documentsPerRecord).toBe(
      Math.floor((LIMITS.kinesisRecordBytes - ASSUMPTIONS.aggregatedPerRecordBytes) / (500_283 + 8)),
    );
    // 100 documents of 591 bytes + 108 = 59,208 bytes: 3 PUT units and 12 Firehose increments per record.
    expect(small.after.putUnitsPerDay).toBeCloseTo((small.eventsPerDay / 100) * 3, 3);
    expect(small.after.firehoseBilledGbPerDay).toBeCloseTo(
      ((small.eventsPerDay / 100) * 12 * 5120) / 2 ** 30,
      6,
    );
  });

  test("reconcile: Logs Insights scans the month once, plus the function's runs", () => {
    // GIVEN 100 GB/day
    const c = scenarioCosts({ gbPerDay: 100, eventBytes: 300 });
    // THEN 100 x 30 x $0.005 = $15, and 96 x 30 runs of 30 s at 0.5 GB
    expect(c.reconcilePerMonth).toBeCloseTo(15 + 96 * 30 * 30 * 0.5 * PRICES.lambdaArmPerGbSecond, 6);
  });

  test('the README quotes the 100 GB/day, 300-byte row as the script computes it', () => {
    // GIVEN the script's row for 100 GB/day of 300-byte events
    const rows = markdownTableCells(costTable([{ gbPerDay: 100, eventBytes: 300 }]));
    const [, , , shards, kinesis, firehose, , storage, cloudWatchLogs] = rows[rows.length - 1];
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8').replace(/\s+/g, ' ');
    // THEN the README's sentence carries the same figures
    expect(readme).toContain(`Firehose ${firehose}, Kinesis ${kinesis}`);
    expect(readme).toContain(`(events-stream shards ${shards.replace(/\d+ \+ /g, '')})`);
    expect(readme).toContain(`OpenSearch storage at ${storage.split(' ')[0]}, against ${cloudWatchLogs}`);
  });

  test('docs/costs.md carries exactly the table the script prints', () => {
    const page = readFileSync(join(__dirname, '..', '..', 'docs', 'costs.md'), 'utf8');
    const start = page.indexOf('| GB/day');
    expect(start).toBeGreaterThan(0);
    const block = page.slice(start, page.indexOf('\n\n', start));
    expect(markdownTableCells(block)).toEqual(markdownTableCells(costTable()));
  });

  test("the direct path's node CPU is Firehose's at the measured ratio, between a replica's and Firehose's", () => {
    // GIVEN the one owner of the figures
    const a = ASSUMPTIONS;
    // THEN the direct primary looks its id up (more than a replica's append) but runs no pipeline (less than Firehose)
    expect(a.indexingCoreMicrosDirect).toBe(
      Math.round(a.indexingCoreMicrosFirehose * a.directOverFirehoseIndexingCpu),
    );
    expect(a.indexingCoreMicrosReplica).toBeLessThan(a.indexingCoreMicrosDirect);
    expect(a.indexingCoreMicrosDirect).toBeLessThan(a.indexingCoreMicrosFirehose);
    // and the Serverless comparison prices with the same figures
    expect(SERVERLESS_ASSUMPTIONS.directCoreMicrosPerDocument).toBe(a.indexingCoreMicrosDirect);
    expect(SERVERLESS_ASSUMPTIONS.pipelineCoreMicrosPerDocument).toBe(a.indexingCoreMicrosFirehose);
  });

  test('direct delivery: no Firehose, the indexer in Lambda, and the domain indexing without the pipeline', () => {
    // GIVEN 100 GB/day of 300-byte events (357,913,941 a day)
    const d = deliveryCosts({ gbPerDay: 100, eventBytes: 300 });
    const n = (100 * 2 ** 30) / 300;
    // THEN the domain's indexing CPU: the primary's (with the pipeline, or without it at the measured ratio), the
    // replica's (no id lookup), averaged over a day
    expect(d.indexingVcpusFirehose).toBeCloseTo((n * (195 + 102)) / 1e6 / 86_400, 6);
    expect(d.indexingVcpusDirect).toBeCloseTo((n * (164 + 102)) / 1e6 / 86_400, 6);
    // The indexer: 0.5 GB for its own CPU at the transform's rate plus the document's indexing time, and requests
    const gbSeconds = n * 0.5 * (1769 / 512 / ASSUMPTIONS.transformEventsPerVcpuSecond + 164e-6);
    const requests = n / ASSUMPTIONS.documentsPerStreamPerBatch / ASSUMPTIONS.indexerBatchSize;
    expect(d.indexerPerMonth).toBeCloseTo(
      30 * (gbSeconds * PRICES.lambdaArmPerGbSecond + (requests * PRICES.lambdaPerMillionRequests) / 1e6),
      6,
    );
    // Firehose's own bill is the aggregated column of the volume table; the indexer costs a small part of it
    expect(d.firehosePerMonth).toBe(scenarioCosts({ gbPerDay: 100, eventBytes: 300 }).after.firehosePerMonth);
    expect(d.indexerPerMonth).toBeLessThan(d.firehosePerMonth / 10);
  });

  test('docs/costs.md carries exactly the delivery table the script prints', () => {
    const page = readFileSync(join(__dirname, '..', '..', 'docs', 'costs.md'), 'utf8');
    const start = page.indexOf('| Volume');
    const block = page.slice(start, page.indexOf('\n\n', start));
    expect(markdownTableCells(block)).toEqual(markdownTableCells(deliveryTable()));
  });
});
