/**
 * The pure parts of `npm start` (scripts/local): the command line, the run's events, the spec derived from the
 * CDK app's config, percentiles and the printed summary. No servers.
 */
import { DEFAULTS, indexNameFor, resolveConfig } from '../../core/config';
import { parseRunMarker } from '../../core/log-generator';
import { localSpecFromConfig, openSearchSpecFromConfig } from '../../scripts/local/config-spec';
import { StartOptionsError } from '../../scripts/local/errors';
import { percentile } from '../../core/verify-stats';
import { DEFAULT_EVENTS, parseStartOptions } from '../../scripts/local/options';
import { MAX_WARM_UP_DOCUMENTS, WARM_UP_DOCUMENTS, warmUpDocumentsFor } from '../../scripts/local/warm-up';
import { runEvents } from '../../scripts/local/workload';
import { formatSummary, type RunSummary } from '../../scripts/local/summary';
import { pipelineLine, type ThroughputReport } from '../../scripts/local/throughput';

describe('npm start options', () => {
  test('defaults', () => {
    expect(parseStartOptions([])).toEqual({
      events: DEFAULT_EVENTS,
      profile: undefined,
      keep: false,
      verbose: false,
      warmUp: true,
      reconcile: true,
      delivery: 'firehose',
      streamsPerGroup: 2,
    });
  });

  test('--delivery direct runs kfek\u2019s own indexer instead of the Firehose stand-in', () => {
    expect(parseStartOptions(['--delivery', 'direct'])).toEqual(
      expect.objectContaining({ delivery: 'direct' }),
    );
    expect(parseStartOptions(['--delivery=firehose'])).toEqual(
      expect.objectContaining({ delivery: 'firehose' }),
    );
  });

  test('--no-reconcile skips the last step', () => {
    expect(parseStartOptions(['--no-reconcile'])).toEqual(expect.objectContaining({ reconcile: false }));
  });

  test('--no-warm-up writes to the cold node at once', () => {
    expect(parseStartOptions(['--no-warm-up'])).toEqual(expect.objectContaining({ warmUp: false }));
  });

  test('the warm-up indexes as many documents as the run writes, 20,000 to 100,000', () => {
    expect(warmUpDocumentsFor(DEFAULT_EVENTS)).toBe(WARM_UP_DOCUMENTS);
    expect(warmUpDocumentsFor(0)).toBe(20_000);
    expect(warmUpDocumentsFor(20_001)).toBe(20_001);
    expect(warmUpDocumentsFor(100_000)).toBe(100_000);
    expect(warmUpDocumentsFor(1_000_000)).toBe(MAX_WARM_UP_DOCUMENTS);
    expect(MAX_WARM_UP_DOCUMENTS).toBe(100_000);
  });

  test('reads --events, --profile (both spellings), --keep and --verbose', () => {
    expect(parseStartOptions(['--events', '250', '--profile=production', '--keep', '--verbose'])).toEqual(
      expect.objectContaining({ events: 250, profile: 'production', keep: true, verbose: true }),
    );
    expect(parseStartOptions(['--help'])).toBe('help');
  });

  test.each([
    [['--events', 'ten']],
    [['--events', '0']],
    [['--events']],
    [['--profile']],
    [['--bogus']],
    [['--delivery', 'kafka']],
  ])('fails when the command line is %j', (argv) => {
    expect(() => parseStartOptions(argv)).toThrow(StartOptionsError);
  });
});

describe('the events of a run', () => {
  test('spreads generated events over the log groups and the run streams, timestamps distinct per stream', () => {
    // GIVEN
    const now = Date.UTC(2026, 10, 23, 10, 0, 0);
    // WHEN
    const events = runEvents('run-abc', 1000, ['/kfek/a', '/kfek/b'], 2, now);
    // THEN
    expect(events).toHaveLength(1000);
    const streams = new Set(events.map((e) => `${e.logGroupName} ${e.logStreamName}`));
    expect(streams).toEqual(
      new Set([
        '/kfek/a kfek-local/run-abc/0',
        '/kfek/a kfek-local/run-abc/1',
        '/kfek/b kfek-local/run-abc/0',
        '/kfek/b kfek-local/run-abc/1',
      ]),
    );
    for (const stream of streams) {
      const times = events
        .filter((e) => `${e.logGroupName} ${e.logStreamName}` === stream)
        .map((e) => e.timestamp);
      expect(new Set(times).size).toBe(times.length);
    }
    // Over the last 45 minutes, never in the future: several 15-minute bins, nothing CloudWatch would reject.
    const times = events.map((e) => e.timestamp);
    expect(Math.max(...times)).toBeLessThan(now);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(now - 45 * 60_000);
    // Each message carries the run marker of the shared generator (kfek verify finds events by it).
    expect(events.every((e) => parseRunMarker(e.message)?.runId === 'run-abc')).toBe(true);
  });
});

describe('the local spec comes from the CDK app config', () => {
  test('sandbox defaults', () => {
    // GIVEN
    const config = resolveConfig({});
    // WHEN
    const spec = localSpecFromConfig(config);
    // THEN
    expect(spec.logGroups.map((g) => g.name)).toEqual(config.sources.logGroups.map((g) => g.name));
    expect(spec.rawStream).toEqual({ name: 'kfek-sandbox-raw', shardCount: config.streams.raw.shardCount });
    expect(spec.eventSource).toEqual(
      expect.objectContaining({
        batchSize: config.transform.batchSize,
        retryAttempts: config.transform.retryAttempts,
        timeoutInMillis: config.transform.timeoutSeconds * 1000,
      }),
    );
    expect(spec.deadLetterPrefix).toBe(config.transform.deadLetterPrefix);
    const arrival = new Date(Date.UTC(2026, 10, 22, 23, 59, 59));
    expect(spec.delivery.indexFor(arrival)).toBe(
      indexNameFor(config.delivery.indexPrefix, config.delivery.indexRotation, arrival),
    );
    expect(spec.delivery.indexPattern).toBe(`${DEFAULTS.delivery.indexPrefix}-*`);
    expect(spec.delivery.retryDurationInMillis).toBe(config.delivery.retryDurationSeconds * 1000);
    expect(openSearchSpecFromConfig(config).indexPattern).toBe(spec.delivery.indexPattern);
  });

  test('a profile changes what is created locally', () => {
    // GIVEN
    const context = {
      kfek: {
        profiles: {
          big: {
            sources: {
              logGroups: [
                { name: '/x/one', create: true },
                { name: '/x/two', create: false },
              ],
            },
            streams: { raw: { mode: 'ON_DEMAND' }, events: { shardCount: 3 } },
            transform: { batchSize: 500 },
            delivery: { indexPrefix: 'applogs', indexRotation: 'OneHour' },
          },
        },
      },
    };
    // WHEN
    const spec = localSpecFromConfig(resolveConfig(context, 'big'));
    // THEN
    expect(spec.logGroups.map((g) => g.name)).toEqual(['/x/one', '/x/two']);
    expect(spec.rawStream.shardCount).toBe(4);
    expect(spec.eventsStream.shardCount).toBe(3);
    expect(spec.eventSource.batchSize).toBe(500);
    expect(spec.delivery.indexFor(new Date(Date.UTC(2026, 0, 2, 3)))).toBe('applogs-2026-01-02-03');
  });
});

describe('summary', () => {
  test('nearest-rank percentiles', () => {
    expect(percentile([], 50)).toBeUndefined();
    expect(percentile([5], 95)).toBe(5);
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
  });

  const summary: RunSummary = {
    runId: 'run-1',
    eventsWritten: 10,
    eventsSearchable: 10,
    documentsSearchable: 10,
    eventSource: {
      invocations: 1,
      recordsDelivered: 1,
      partialBatchResponses: 0,
      functionErrors: 0,
      recordsRetried: 0,
      recordsSentToOnFailure: 0,
      invocationMillis: 600,
      readErrors: 0,
    },
    delivery: {
      // Ten events of one log stream travel in one aggregated record.
      recordsRead: 1,
      userRecords: 10,
      documentsIndexed: 10,
      documentsOverwritten: 0,
      documentsFailed: 0,
      documentRetries: 0,
      bulkRequests: 1,
      indexingSpanInMillis: 1200,
      readErrors: 0,
      indices: ['logs-2026-11-23'],
    },
    deadLettered: 0,
    errorBins: [{ start: '2026-11-23T09:00:00.000Z', count: 3 }],
    latency: { sampled: 10, found: 10, p50InMillis: 1500, p95InMillis: 2500, maxInMillis: 3000 },
    elapsedInMillis: 4200,
  };

  test('says OK when every event is searchable, and prints the bins and latency', () => {
    const text = formatSummary(summary);
    expect(text).toContain('OK: every event is searchable');
    expect(text).toContain('2026-11-23T09:00:00.000Z      3');
    expect(text).toContain('p50 1.50 s, p95 2.50 s');
  });

  test('says MISMATCH and how many are missing otherwise', () => {
    const text = formatSummary({ ...summary, eventsSearchable: 7, documentsSearchable: 7 });
    expect(text).toContain('MISMATCH: 3 event(s) not searchable');
  });

  test("counts events a route's drop rule kept out, by rule, as accounted for (issue 24)", () => {
    // GIVEN 3 of the 10 events dropped by a route's rules, 7 searchable
    const text = formatSummary({
      ...summary,
      eventsSearchable: 7,
      documentsSearchable: 7,
      processing: { droppedByRule: { debug: 2, health: 1 }, joinedLines: 0 },
    });
    // THEN
    expect(text).toContain('OK: every event is searchable once');
    expect(text).toMatch(/dropped by route rules +3 \(debug 2, health 1\)/);
    expect(text).toMatch(/accounted for +10 of 10/);
  });

  test('counts redelivered documents that overwrote their event as duplicates collapsed', () => {
    // GIVEN 4 documents delivered a second time (a retried batch) and overwritten by their id
    const retried = {
      ...summary,
      delivery: { ...summary.delivery, documentsIndexed: 14, documentsOverwritten: 4 },
    };
    // WHEN
    const text = formatSummary(retried);
    // THEN
    expect(text).toContain('OK: every event is searchable once');
    expect(text).toMatch(/duplicates collapsed +4 /);
  });

  test('never calls extra documents "not searchable": copies in a second daily index are named as such', () => {
    // GIVEN every event searchable, 3 of them also in the next daily index (a retry across midnight)
    const extra = { ...summary, documentsSearchable: 13 };
    // WHEN
    const text = formatSummary(extra);
    // THEN
    expect(text).not.toContain('not searchable');
    expect(text).not.toContain('MISMATCH');
    expect(text).toContain('OK: every event is searchable');
    expect(text).toContain('3 extra document(s): an event in two daily indices');
  });

  test('counts the emulator errors the loops retried', () => {
    const text = formatSummary({
      ...summary,
      eventSource: { ...summary.eventSource, readErrors: 2 },
      delivery: { ...summary.delivery, readErrors: 1 },
    });
    expect(text).toContain('emulator errors retried:  2 by the event source, 1 by the delivery loop');
  });

  const throughput: ThroughputReport = {
    events: 100_000,
    endToEndInMillis: 32_000,
    writeInMillis: 20_000,
    transformInvocations: 130,
    transformBusyInMillis: 5_000,
    eventsStreamRecords: 400,
    documentsIndexed: 100_000,
    bulkRequests: 10,
    indexingSpanInMillis: 25_000,
    emulatorErrors: 3,
  };

  test('prints events/s per stage and end to end when the run measured them', () => {
    const text = formatSummary({ ...summary, throughput });
    expect(text).toContain('first write to all searchable 32.0 s: 3125 events/s end to end');
    expect(text).toMatch(/write \(PutLogEvents into moto\) +20\.0 s +5000 events\/s/);
    expect(text).toMatch(/transform \(handler busy time\) +5\.0 s +20000 events\/s busy, 130 invocations/);
    expect(text).toMatch(/indexing \(first to last bulk\) +25\.0 s +4000 docs\/s, 10 bulk requests/);
    expect(formatSummary(summary)).not.toContain('throughput');
  });

  test("bench:e2e's last line has the fixed format, and says n/a when nothing became searchable", () => {
    expect(pipelineLine(throughput, summary.latency)).toBe('pipeline: 3125 events/s, p50 1.50 s, p95 2.50 s');
    expect(
      pipelineLine(
        { ...throughput, endToEndInMillis: undefined },
        { sampled: 0, found: 0, p50InMillis: undefined, p95InMillis: undefined, maxInMillis: undefined },
      ),
    ).toBe('pipeline: n/a events/s, p50 n/a s, p95 n/a s');
  });
});
