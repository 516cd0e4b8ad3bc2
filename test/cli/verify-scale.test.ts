/**
 * `kfek verify` at the sizes and with the numbers an index can hold: a large run found without --expect, a stray
 * document with a huge `kfek_seq`, a huge --expect. Each must finish in about the time it takes to read the hits,
 * whatever the numbers say. An in-memory client stands in for OpenSearch (the HTTP side is verify.test.ts's).
 */
import type { HttpRequest, HttpResponse, OpenSearchHttpClient } from '../../core/opensearch/http';
import { runMarker } from '../../core/log-generator';
import { formatVerifyResult } from '../../cli/format';
import { verifyRun, type VerifyOptions } from '../../cli/verify';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);

/** Serves `messages` as one run's hits, `pageSize` per scroll page, as verify's fetchRun reads them. */
function inMemoryOpenSearch(messages: readonly string[]): OpenSearchHttpClient {
  const timestamp = new Date(T0).toISOString();
  let offset = 0;
  let size = 0;
  const page = (): HttpResponse => {
    const hits = messages
      .slice(offset, offset + size)
      .map((message) => ({ _source: { message, '@timestamp': timestamp } }));
    offset += size;
    const body = { _scroll_id: 'scroll-1', hits: { hits } };
    return { status: 200, body, text: '' };
  };
  return {
    baseUrl: 'http://opensearch.invalid',
    request: (request: HttpRequest): Promise<HttpResponse> => {
      if (request.method === 'DELETE') return Promise.resolve({ status: 200, body: {}, text: '' });
      if (request.path.includes('/_search?')) {
        offset = 0;
        size = (request.body as { size: number }).size;
      }
      return Promise.resolve(page());
    },
  };
}

const run = (messages: readonly string[], options: Partial<VerifyOptions> = {}) =>
  verifyRun(inMemoryOpenSearch(messages), {
    runId: 'r1',
    timeoutInMillis: 0,
    now: () => T0 + 10_000,
    sleep: () => Promise.resolve(),
    ...options,
  });

const events = (count: number): string[] => Array.from({ length: count }, (_, seq) => runMarker('r1', seq));

describe('kfek verify at scale', () => {
  test('a run of 150,000 events without --expect is counted, not a stack overflow', async () => {
    // GIVEN every event of a 150,000-event run
    const messages = events(150_000);
    // WHEN
    const result = await run(messages);
    // THEN
    expect(result).toEqual(
      expect.objectContaining({ delivered: 150_000, missing: 0, duplicates: 0, complete: true }),
    );
  });

  test('a stray document with a huge kfek_seq is reported as found, without walking up to it', async () => {
    // GIVEN three events of the run and one stray document far above them
    const messages = [...events(3), runMarker('r1', 4_000_000_000_000)];
    // WHEN (a loop to the stray number would take hours)
    const startedAt = Date.now();
    const result = await run(messages);
    // THEN the gaps below it are counted, the first ones named, and the report says where the count comes from
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(result).toEqual(
      expect.objectContaining({
        delivered: 4,
        missing: 4_000_000_000_000 - 3,
        missingSample: Array.from({ length: 20 }, (_, i) => 3 + i),
        highestSeq: 4_000_000_000_000,
        complete: false,
      }),
    );
    expect(formatVerifyResult(result)).toMatch(
      /missing counts the gaps below the highest kfek_seq found, 4000000000000: pass --expect N/,
    );
  });

  test('a kfek_seq too large to be a number is set aside and named, never looped to', async () => {
    // GIVEN a run's events and two documents whose kfek_seq no JavaScript number holds exactly
    const messages = [
      ...events(5),
      'kfek_run=r1 kfek_seq=9007199254740993',
      `kfek_run=r1 kfek_seq=${'9'.repeat(400)}`,
    ];
    // WHEN
    const result = await run(messages);
    // THEN
    expect(result).toEqual(
      expect.objectContaining({ delivered: 5, missing: 0, outOfRange: 2, highestSeq: 4, complete: true }),
    );
    expect(formatVerifyResult(result)).toMatch(
      /2 documents carry a kfek_seq that is not a whole number below 2\^53/,
    );
  });

  test('a huge --expect counts what is missing without a loop over the whole range', async () => {
    // GIVEN 10 events and an --expect of the largest safe integer
    const expected = Number.MAX_SAFE_INTEGER;
    // WHEN
    const startedAt = Date.now();
    const result = await run(events(10), { expected });
    // THEN
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(result).toEqual(
      expect.objectContaining({
        delivered: 10,
        missing: expected - 10,
        missingSample: Array.from({ length: 20 }, (_, i) => 10 + i),
        complete: false,
      }),
    );
  });

  test('with --expect, documents at or beyond it are not counted as delivered and do not end the wait', async () => {
    // GIVEN seq 0-8 of 10 expected, plus a stray seq 1000: ten distinct numbers, one of them out of range
    const messages = [...events(9), runMarker('r1', 1000)];
    const polls: number[] = [];
    // WHEN verify waits up to 10 s for 10 events
    let t = T0;
    const clock = { now: () => t, sleep: (ms: number) => Promise.resolve(void (t += ms)) };
    const result = await run(messages, {
      expected: 10,
      timeoutInMillis: 10_000,
      pollIntervalInMillis: 2_000,
      ...clock,
      onPoll: (found) => polls.push(found),
    });
    // THEN it kept polling (9 of 10 are in range) and reports the missing one and the stray
    expect(polls.length).toBeGreaterThan(1);
    expect(polls.every((found) => found === 9)).toBe(true);
    expect(result).toEqual(
      expect.objectContaining({
        delivered: 9,
        missing: 1,
        missingSample: [9],
        outOfRange: 1,
        complete: false,
      }),
    );
    expect(formatVerifyResult(result)).toMatch(
      /1 document carries a kfek_seq outside 0-9 \(the --expect range\) or beyond 2\^53: not written by this run/,
    );
  });
});
