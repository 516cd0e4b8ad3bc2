/** The node's counters bench:e2e prints per delivery (scripts/local/node-stats.ts). */
import { formatNodeCounters, nodeCountersDelta, nodeCountersOf } from '../../../scripts/local/node-stats';

const answer = (indexed: number, ingested: number, writes: number): unknown => ({
  nodes: {
    abc: {
      indices: {
        indexing: { index_total: indexed, index_time_in_millis: indexed / 10 },
        refresh: { total: 3, total_time_in_millis: 30 },
        flush: { total: 1 },
        merges: { total: 2, total_time_in_millis: 20, total_docs: 500 },
        search: { query_total: 7, query_time_in_millis: 70 },
      },
      ingest: { total: { count: ingested, time_in_millis: ingested / 100 } },
      thread_pool: { write: { completed: writes } },
      http: { total_opened: 4 },
    },
  },
});

describe('node counters', () => {
  test('the difference over a span, and the lines that say where the node spent it', () => {
    // GIVEN two answers of _nodes/_local/stats
    const before = nodeCountersOf(answer(1_000, 1_000, 10));
    const after = nodeCountersOf(answer(21_000, 1_000, 20));
    // WHEN
    const delta = nodeCountersDelta(before, after);
    // THEN
    expect(delta).toMatchObject({
      indexTotal: 20_000,
      indexTimeMillis: 2_000,
      ingestTotal: 0,
      writeTasks: 10,
    });
    expect(formatNodeCounters(delta).join('\n')).toMatch(
      /20000 documents indexed, index time 2.0 s \(100 us\/doc\); ingest pipeline ran for 0 documents.*10 write tasks \(2000 docs each\)/s,
    );
  });

  test('an answer without the sections counts zero rather than failing the run', () => {
    expect(nodeCountersOf({})).toMatchObject({ indexTotal: 0, writeTasks: 0, httpOpened: 0 });
    expect(formatNodeCounters(nodeCountersOf({}))[0]).toContain('(n/a)');
  });
});
