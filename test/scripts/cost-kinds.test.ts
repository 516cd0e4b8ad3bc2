/**
 * The domain-or-Serverless table of docs/costs.md (scripts/cost-kinds.ts, issue 42): the arithmetic behind the
 * sandbox's idle floor goal (at most $30 a month for the serverless sandbox) and the volume rows.
 */
import { ASSUMPTIONS, PRICES, SERVERLESS_PRICES } from '../../core/contracts/cost-model';
import { idleFloor, kindCosts, kindTable } from '../../scripts/cost-kinds';

describe('the idle floor', () => {
  test('the serverless sandbox idles at most at $30 a month: two shards and the streams key, no OCU', () => {
    // WHEN
    const floor = idleFloor();
    // THEN
    const streams = 2 * PRICES.kinesisShardHour * ASSUMPTIONS.hoursPerMonth + SERVERLESS_PRICES.kmsKeyMonth;
    expect(floor.serverless).toBeCloseTo(streams, 6);
    expect(floor.serverless).toBeLessThanOrEqual(30);
  });

  test("the domain sandbox adds its t3.small.search and 10 GB volume, docs/costs.md's $27.50", () => {
    // WHEN
    const floor = idleFloor();
    // THEN
    expect(floor.domain - floor.streams).toBeCloseTo(26.28 + 1.22, 2);
  });
});

describe('at volume', () => {
  test('a steady trickle keeps half an indexing OCU awake all month (no scale to zero)', () => {
    // WHEN
    const k = kindCosts(1, 300);
    // THEN
    expect(k.serverless.indexingOcu).toBe(0.5);
    expect(k.serverless.computePerMonth).toBeGreaterThanOrEqual(0.5 * ASSUMPTIONS.hoursPerMonth * 0.24);
    expect(k.domain.sandboxNodePerMonth).toBeDefined();
  });

  test('indexing OCUs and storage grow with volume, in half-OCU steps', () => {
    // WHEN
    const rows = [1, 100, 1000].map((gb) => kindCosts(gb, 300));
    // THEN
    for (const [a, b] of [
      [rows[0], rows[1]],
      [rows[1], rows[2]],
    ]) {
      expect(b.serverless.indexingOcu).toBeGreaterThanOrEqual(a.serverless.indexingOcu);
      expect(b.serverless.storagePerMonth).toBeGreaterThan(a.serverless.storagePerMonth);
    }
    for (const row of rows) expect((row.serverless.indexingOcu * 2) % 1).toBe(0);
  });

  test('the table has the idle row, six volume rows and names its price source and assumptions', () => {
    // WHEN
    const table = kindTable();
    // THEN
    expect(table.split('\n').filter((l) => l.startsWith('| '))).toHaveLength(2 + 7);
    expect(table).toMatch(/\$0\.24\/OCU-hour.*as of March 2026/);
    expect(table).toMatch(/directCoreMicrosPerDocument: 164/);
  });
});
