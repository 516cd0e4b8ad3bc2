/**
 * The latency probe on its own, against a scripted fake of the OpenSearch HTTP port (the end-to-end runs use a
 * real node; here the test decides when each event becomes searchable, and the clock is injected).
 */
import type { HttpRequest, HttpResponse, OpenSearchHttpClient } from '../../../core/opensearch/http';
import { LocalRunError } from '../../../scripts/local/errors';
import { LatencyProbe } from '../../../scripts/local/latency-probe';
import { SearchHttp } from '../../../scripts/local/search-http';
import type { SentLogEvent } from '../../../scripts/local/sender';

/** A node on which the events the test marks are searchable; answers the probe's `_search` with them. */
class FakeNode implements OpenSearchHttpClient {
  readonly baseUrl = 'http://fake';
  readonly searchable = new Set<string>();
  searches = 0;

  request(request: HttpRequest): Promise<HttpResponse> {
    this.searches += 1;
    const query = request.body as {
      query: { bool: { should: Array<{ bool: { filter: Array<{ term: Record<string, string> }> } }> } };
    };
    const hits = query.query.bool.should
      .map((clause) => {
        const [stream, time] = clause.bool.filter.map((f) => Object.values(f.term)[0]);
        return { stream, time };
      })
      .filter(({ stream, time }) => this.searchable.has(`${stream}|${time}`))
      .map(({ stream, time }) => ({ _source: { '@timestamp': time, cloudwatch: { logStream: stream } } }));
    const body = { hits: { hits } };
    return Promise.resolve({ status: 200, body, text: JSON.stringify(body) });
  }
}

function sent(count: number, putAt: number, offset = 0): SentLogEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    logGroupName: '/g',
    logStreamName: 's',
    timestamp: Date.UTC(2026, 0, 1) + offset + i,
    message: `m${offset + i}`,
    putAt,
  }));
}

function keyOf(event: SentLogEvent): string {
  return `${event.logStreamName}|${new Date(event.timestamp).toISOString()}`;
}

describe('LatencyProbe', () => {
  test('measures an event from its own write, not from when the rest of the run was written', async () => {
    // GIVEN a run of two writes 9 s apart; the first write's events are searchable 1 s after it
    let clock = 0;
    const node = new FakeNode();
    const probe = new LatencyProbe({
      search: new SearchHttp(node),
      indexPattern: 'logs-*',
      expectedEvents: 20,
      sampleSize: 20,
      pollIntervalInMillis: 1,
      now: () => clock,
    });
    probe.start();
    const first = sent(10, 0);
    probe.follow(first);
    clock = 1_000;
    for (const event of first) node.searchable.add(keyOf(event));
    await waitFor(() => probe.report().found === 10);

    // WHEN the second write happens at 9 s and is searchable at 10 s
    clock = 9_000;
    const second = sent(10, 9_000, 10);
    probe.follow(second);
    clock = 10_000;
    for (const event of second) node.searchable.add(keyOf(event));
    await probe.waitUntilComplete(5_000);
    const report = await probe.stop();

    // THEN every event took 1 s (following both writes only at the end would have reported 10 s for the first)
    expect(report).toEqual({
      sampled: 20,
      found: 20,
      p50InMillis: 1_000,
      p95InMillis: 1_000,
      maxInMillis: 1_000,
    });
  });

  test('spreads the sample evenly over the whole write, the last slice included', () => {
    // GIVEN a probe of 4 samples over 100 expected events
    const probe = new LatencyProbe({
      search: new SearchHttp(new FakeNode()),
      indexPattern: 'logs-*',
      expectedEvents: 100,
      sampleSize: 4,
    });

    // WHEN the events arrive in writes of various sizes
    const events = sent(100, 0);
    for (const size of [1, 30, 9, 45, 15]) probe.follow(events.splice(0, size));
    probe.follow(sent(50, 0, 100)); // more than expected: not sampled

    // THEN the middle event of each quarter is followed
    expect(probe.report().sampled).toBe(4);
    expect(probe.followed().map((e) => e.message)).toEqual(['m12', 'm37', 'm62', 'm87']);
  });

  test('fails when the expected event count is not a whole number >= 1', () => {
    expect(
      () =>
        new LatencyProbe({ search: new SearchHttp(new FakeNode()), indexPattern: 'l-*', expectedEvents: 0 }),
    ).toThrow(LocalRunError);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 2));
  if (!condition()) throw new Error('condition not met');
}
