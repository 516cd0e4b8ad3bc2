/**
 * `kfek verify` against a fake OpenSearch HTTP server on 127.0.0.1 (the real single node is exercised by the
 * end-to-end job of issue 4).
 */
import { createHttpClient } from '../../core/opensearch/http';
import { OpenSearchRequestError } from '../../cli/errors';
import { runMarker } from '../../core/log-generator';
import type { CliIo } from '../../cli/io';
import { run } from '../../cli/main';
import { verifyRun, type VerifyResult } from '../../cli/verify';
import {
  startFakeOpenSearch,
  type FakeDocument,
  type FakeOpenSearch,
} from '../helpers/fake-opensearch-search';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);

function doc(runId: string, seq: number, timestamp: number, extra: Partial<FakeDocument> = {}): FakeDocument {
  return {
    source: {
      '@timestamp': new Date(timestamp).toISOString(),
      message: `Order accepted ${runMarker(runId, seq)}`,
    },
    ...extra,
  };
}

/** A fake clock that `sleep` advances, so polling takes no real time. */
function fakeClock(start: number): { now: () => number; sleep: (ms: number) => Promise<void> } {
  let t = start;
  return {
    now: () => t,
    sleep: (ms) => {
      t += ms;
      return Promise.resolve();
    },
  };
}

const servers: FakeOpenSearch[] = [];
async function serve(...args: Parameters<typeof startFakeOpenSearch>): Promise<FakeOpenSearch> {
  const server = await startFakeOpenSearch(...args);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const clientFor = (server: FakeOpenSearch) => createHttpClient({ baseUrl: server.url, maxAttempts: 1 });

describe('verifyRun', () => {
  test('finds every event of the run across scroll pages, counts duplicates, ignores other runs, clears the scroll', async () => {
    // GIVEN 7 events of run r1 (seq 2 delivered twice) and noise
    const documents = [
      ...Array.from({ length: 7 }, (_, seq) => doc('r1', seq, T0)),
      doc('r1', 2, T0),
      doc('r2', 0, T0),
      { source: { '@timestamp': new Date(T0).toISOString(), message: 'kfek_run=r1 without a seq' } },
    ];
    const server = await serve(documents);
    // WHEN
    const result = await verifyRun(clientFor(server), {
      runId: 'r1',
      indexPattern: 'logs-*',
      expected: 7,
      timeoutInMillis: 0,
      pageSize: 3,
      ...fakeClock(T0 + 5000),
    });
    // THEN
    expect(result).toEqual(
      expect.objectContaining({ delivered: 7, duplicates: 1, missing: 0, complete: true, polls: 1 }),
    );
    const [search, ...rest] = server.requests;
    expect(search.url).toBe('/logs-%2A/_search?ignore_unavailable=true&allow_no_indices=true&scroll=1m');
    expect(search.body).toEqual(
      expect.objectContaining({ size: 3, query: { match_phrase: { message: 'kfek_run=r1' } } }),
    );
    expect(rest.filter((r) => r.url === '/_search/scroll' && r.method === 'POST')).toHaveLength(3);
    expect(server.openScrolls).toBe(0);
  });

  test('polls until every expected event is searchable and measures first-seen latency', async () => {
    // GIVEN seq 0-4 searchable from the first search, seq 5-9 (written 1 s later) only from the third
    const documents = [
      ...Array.from({ length: 5 }, (_, seq) => doc('r1', seq, T0)),
      ...Array.from({ length: 5 }, (_, i) => doc('r1', 5 + i, T0 + 1000, { visibleFromSearch: 3 })),
    ];
    const server = await serve(documents);
    const polls: number[] = [];
    // WHEN the first search starts at T0+5 s and they are 2 s apart
    const result = await verifyRun(clientFor(server), {
      runId: 'r1',
      expected: 10,
      timeoutInMillis: 60_000,
      pollIntervalInMillis: 2000,
      onPoll: (found) => polls.push(found),
      ...fakeClock(T0 + 5000),
    });
    // THEN seq 5-9 were first seen by the search at T0+9 s: 8 s after their @timestamp
    expect(polls).toEqual([5, 5, 10]);
    expect(result).toEqual(expect.objectContaining({ delivered: 10, complete: true, presentAtFirstPoll: 5 }));
    expect(result.latency).toEqual({
      basis: 'first-seen',
      samples: 5,
      p50InMillis: 8000,
      p95InMillis: 8000,
      p99InMillis: 8000,
      maxInMillis: 8000,
    });
  });

  test('reports missing events after the timeout', async () => {
    const documents = Array.from({ length: 10 }, (_, seq) => doc('r1', seq, T0)).filter(
      (_, seq) => seq !== 3 && seq !== 7,
    );
    const server = await serve(documents);
    const result = await verifyRun(clientFor(server), {
      runId: 'r1',
      expected: 10,
      timeoutInMillis: 10_000,
      pollIntervalInMillis: 2000,
      ...fakeClock(T0),
    });
    expect(result).toEqual(
      expect.objectContaining({ delivered: 8, missing: 2, missingSample: [3, 7], complete: false, polls: 6 }),
    );
  });

  test('without --expect, gaps below the highest sequence number count as missing', async () => {
    const server = await serve([doc('r1', 0, T0), doc('r1', 4, T0)]);
    const result = await verifyRun(clientFor(server), { runId: 'r1', timeoutInMillis: 0, ...fakeClock(T0) });
    expect(result).toEqual(expect.objectContaining({ delivered: 2, missing: 3, missingSample: [1, 2, 3] }));
  });

  test('uses the ingest-time field when asked', async () => {
    const documents = Array.from({ length: 100 }, (_, seq) => ({
      source: {
        '@timestamp': new Date(T0).toISOString(),
        message: runMarker('r1', seq),
        kfek: { ingestedAt: new Date(T0 + (seq + 1) * 10).toISOString() },
      },
    }));
    const server = await serve(documents);
    const result = await verifyRun(clientFor(server), {
      runId: 'r1',
      expected: 100,
      timeoutInMillis: 0,
      ingestField: 'kfek.ingestedAt',
      ...fakeClock(T0 + 60_000),
    });
    expect(result.latency).toEqual({
      basis: 'ingest-field',
      samples: 100,
      p50InMillis: 500,
      p95InMillis: 950,
      p99InMillis: 990,
      maxInMillis: 1000,
    });
    expect(server.requests[0].body).toEqual(
      expect.objectContaining({ _source: ['message', '@timestamp', 'kfek.ingestedAt'] }),
    );
  });

  test('fails with a message that says what to do when OpenSearch refuses the search', async () => {
    const server = await serve([], { requireAuthorization: 'Basic nobody' });
    const verifying = verifyRun(clientFor(server), { runId: 'r1', timeoutInMillis: 0 });
    await expect(verifying).rejects.toThrow(OpenSearchRequestError);
    await expect(verifying).rejects.toThrow(/refused the search \(HTTP 401\): pass credentials/);
  });

  test('fails when the index pattern is not one', async () => {
    const server = await serve([]);
    await expect(
      verifyRun(clientFor(server), { runId: 'r1', indexPattern: 'logs/../x', timeoutInMillis: 0 }),
    ).rejects.toThrow(/--index "logs\/..\/x" is not an index pattern/);
  });
});

describe('kfek verify', () => {
  function captureIo(env: Record<string, string> = {}): CliIo & { out: () => string; err: () => string } {
    let out = '';
    let err = '';
    return {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
      env,
      out: () => out,
      err: () => err,
    };
  }

  test('sends basic auth from the URL, never prints the password, and exits 0 when complete', async () => {
    const authorization = `Basic ${Buffer.from('admin:s3cret!').toString('base64')}`;
    const server = await serve(
      Array.from({ length: 3 }, (_, seq) => doc('r9', seq, T0)),
      { requireAuthorization: authorization },
    );
    const io = captureIo();
    const url = server.url.replace('http://', 'http://admin:s3cret%21@');
    const code = await run(['verify', '--run-id', 'r9', '--opensearch', url, '--expect', '3', '--json'], io);
    expect(io.err()).not.toContain('s3cret');
    expect(io.out()).not.toContain('s3cret');
    expect(code).toBe(0);
    expect(JSON.parse(io.out()) as VerifyResult).toEqual(
      expect.objectContaining({ runId: 'r9', delivered: 3, missing: 0, complete: true }),
    );
    expect(io.err()).toBe('verify r9: 3/3 found\n');
  });

  test('prints the report and exits 1 when events are missing', async () => {
    const server = await serve([doc('r9', 0, T0), doc('r9', 2, T0)]);
    const io = captureIo({ KFEK_OPENSEARCH_URL: server.url });
    const code = await run(['verify', '--run-id', 'r9', '--expect', '3', '--timeout', '0'], io);
    expect(code).toBe(1);
    expect(io.out()).toMatch(/^run r9: delivered 2 of 3, missing 1, duplicates 0 \(1 searches in /);
    expect(io.out()).toContain('missing kfek_seq: 1');
    expect(io.out()).toMatch(/latency \(first seen by a search - @timestamp.*upper bounds/);
    expect(io.err()).toMatch(/kfek: 1 events of run r9 are missing: check the pipeline dashboard and alarms/);
  });

  test('fails with one line when OpenSearch is not reachable', async () => {
    const io = captureIo();
    const code = await run(['verify', '--run-id', 'r9', '--opensearch', 'http://127.0.0.1:9'], io);
    expect(code).toBe(1);
    expect(io.err()).toMatch(
      /^kfek: Could not reach OpenSearch at http:\/\/127.0.0.1:9 .*check --opensearch/,
    );
  });
});
