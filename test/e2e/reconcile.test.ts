/**
 * End-to-end: `kfek reconcile` against the pipeline of `npm start`, real components only (moto for CloudWatch Logs,
 * Kinesis and S3; a real OpenSearch node; the real transform handler under the local event-source loop; the local
 * Firehose stand-in). Events are lost on purpose in every way that can be made here, each in its own log group:
 *
 * - a subscription removed for a while (CloudWatch Logs keeps the events, the raw stream never sees them);
 * - records gone before the transform reads them (a fault in front of the handler drops them, as records that
 *   outlived the raw stream's retention would be);
 * - an index deleted (the `search` route's index of the day);
 * - documents OpenSearch refuses (a mapping conflict: the stand-in keeps them in the failed-documents folder);
 * - a batch the transform keeps failing on (the event source gives up and keeps it in its on-failure folder);
 *
 * beside events that are not lost: healthy traffic, a drop rule and multi-line traces (the teams profile's `payments`
 * route, one trace across a minute boundary), an event of a minute newer than the lag, and an event of an old minute
 * that CloudWatch Logs took in within the lag and whose record the pipeline has not delivered yet (both held back by
 * the fault and put on the raw stream later). The test holds that the first run finds exactly the lost events
 * (missing: the first three ways; kept, with where: the last two) and calls nothing else missing, that `--heal` heals
 * exactly the missing ones, and that a third run finds nothing missing. Then (issue 39) the healed events of one group
 * are healed a second time through the real heal sender: nothing changes (the same documents, overwritten), and an
 * envelope's arrival names the index on the real node (sent with yesterday's arrival, an event lands in yesterday's
 * index of its stem).
 *
 * Logs Insights in moto has no `stats`: the CloudWatch side counts with FilterLogEvents (`--count scan`, the default
 * with an endpoint). The Logs Insights way is tested with a mocked client (test/cli/reconcile/cloudwatch.test.ts).
 * moto runs one request at a time (as `npm start` runs it): the heal writes the raw stream while the pipeline reads it.
 */
import { gunzipSync } from 'node:zlib';
import {
  DeleteSubscriptionFilterCommand,
  FilterLogEventsCommand,
  type FilteredLogEvent,
  PutSubscriptionFilterCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { KinesisStreamEvent } from 'aws-lambda';
import { run } from '../../cli/main';
import { resolveConfig } from '../../core/config';
import { kinesisPort } from '../../core/kinesis/aws';
import { minuteOf } from '../../core/reconcile/engine';
import { rawStreamHealer } from '../../core/reconcile/healer';
import { RequestMeter } from '../../core/reconcile/ports';
import type { EventVerdict, LogEvent } from '../../core/reconcile/model';
import { createHttpClient } from '../../core/opensearch/http';
import { documentIdFor } from '../../core/opensearch/ingest-pipeline';
import type { ReconcileRun } from '../../cli/reconcile/service';
import type { KinesisBatchHandler } from '../../scripts/local/event-source-loop';
import type { LocalPipeline } from '../../scripts/local/pipeline';
import { CDK_JSON_CONTEXT } from '../helpers/app';
import { LocalStackRunner } from '../helpers/local-stack';
import { OPENSEARCH_START_TIMEOUT_MILLIS } from '../helpers/opensearch';

const G = {
  healthy: '/kfek/teams/app',
  payments: '/kfek/teams/payments',
  search: '/kfek/teams/search',
  gap: '/kfek/teams/gap',
  records: '/kfek/teams/records',
  failed: '/kfek/teams/failed',
  discarded: '/kfek/teams/discarded',
  late: '/kfek/teams/late',
} as const;

/** cdk.json's teams profile (its routes: payments drops health checks and joins Java traces), with more log groups. */
const TEAMS = (CDK_JSON_CONTEXT.kfek as { profiles: Record<string, Record<string, unknown>> }).profiles.teams;
const CONTEXT = {
  kfek: {
    profiles: {
      teams: {
        ...TEAMS,
        sources: { logGroups: Object.values(G).map((name) => ({ name, create: true })) },
        streams: { raw: { shardCount: 2 }, events: { shardCount: 2 } },
        transform: { timeoutSeconds: 30, batchSize: 10, retryAttempts: 1, maxBatchingWindowSeconds: 0 },
        delivery: { retryDurationSeconds: 2 },
        openSearch: { indexTemplate: { replicas: 0 } },
      },
    },
  },
};
const STEP_TIMEOUT_MILLIS = 60_000;

/** Faults in front of the real transform handler, by log group. */
class Faults {
  /** Records that vanish before the transform reads them. */
  readonly lose = new Set<string>();
  /** Records the transform fails on, every time. */
  readonly fail = new Set<string>();
  /** Records held back, to be put on the raw stream later (late delivery). */
  readonly defer = new Set<string>();
  readonly held: { Data: Buffer; PartitionKey: string }[] = [];

  wrap = (handler: KinesisBatchHandler): KinesisBatchHandler => {
    return async (event, context) => {
      const kept: KinesisStreamEvent['Records'] = [];
      for (const record of event.Records) {
        const data = Buffer.from(record.kinesis.data, 'base64');
        const group = (JSON.parse(gunzipSync(data).toString('utf8')) as { logGroup: string }).logGroup;
        if (this.fail.has(group)) throw new Error(`fault: the transform fails on ${group}`);
        if (this.lose.has(group)) continue;
        if (this.defer.has(group)) {
          this.held.push({ Data: data, PartitionKey: record.kinesis.partitionKey });
          continue;
        }
        kept.push(record);
      }
      return kept.length === 0 ? { batchItemFailures: [] } : handler({ Records: kept }, context);
    };
  };
}

const faults = new Faults();
const stack = new LocalStackRunner();

beforeAll(async () => {
  await stack.start(resolveConfig(CONTEXT, 'teams'), {
    workDirPrefix: 'kfek-reconcile-',
    deliveryBufferIntervalInMillis: 300,
    serializedMoto: true,
    wrapHandler: faults.wrap,
  });
}, OPENSEARCH_START_TIMEOUT_MILLIS);

afterAll(async () => {
  await stack.stop();
}, 60_000);

const pipeline = (): LocalPipeline => stack.get().pipeline;
const settle = (): Promise<void> => pipeline().waitUntilSettled(STEP_TIMEOUT_MILLIS);

/** Writes events of one stream: `[seconds after base, message]`. */
async function write(
  group: string,
  stream: string,
  base: number,
  lines: readonly (readonly [number, string])[],
): Promise<string[]> {
  // In time order, as PutLogEvents wants them (a trace's lines then follow each other in the envelope).
  const sorted = [...lines].sort((a, b) => a[0] - b[0]);
  await pipeline().send(
    sorted.map(([seconds, message]) => ({
      logGroupName: group,
      logStreamName: stream,
      timestamp: base + seconds * 1000,
      message,
    })),
  );
  return sorted.map(([seconds]) => `${group}|${stream}|${base + seconds * 1000}`);
}

const info = (text: string): string => JSON.stringify({ level: 'INFO', message: text });
const range = (n: number, f: (i: number) => readonly [number, string]): (readonly [number, string])[] =>
  Array.from({ length: n }, (_, i) => f(i));

async function reconcile(
  args: readonly string[],
  startedAt?: number,
): Promise<{ code: number; report: ReconcileRun; stderr: string }> {
  const { moto, spec, node, workDir, pipeline: p } = stack.get();
  let stdout = '';
  let stderr = '';
  const code = await run(
    [
      'reconcile',
      '--profile',
      'teams',
      ...Object.values(G).flatMap((g) => ['--log-group', g]),
      '--endpoint',
      moto.endpoint,
      '--region',
      spec.region,
      '--opensearch',
      node.url,
      '--raw-stream',
      p.resources.rawStreamArn,
      '--bucket',
      p.resources.deadLetterBucket,
      '--local-dir',
      workDir,
      '--json',
      ...args,
    ],
    {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: {},
      // The run's clock starts when the test computed its lag, however long the command takes to start on a busy
      // machine; it then runs at the wall clock's pace (the heal waits by it).
      ...(startedAt === undefined
        ? {}
        : {
            now: (
              (offset) => () =>
                Date.now() - offset
            )(Date.now() - startedAt),
          }),
    },
  );
  if (stdout === '') throw new Error(`kfek reconcile printed nothing (exit ${code}): ${stderr}`);
  return { code, report: JSON.parse(stdout) as ReconcileRun, stderr };
}

/** A FilterLogEvents event as the reconcile reads it. */
function toLogEvent(e: FilteredLogEvent): LogEvent {
  return {
    id: String(e.eventId),
    timestamp: e.timestamp ?? 0,
    message: e.message ?? '',
    logStream: e.logStreamName ?? '',
    ...(e.ingestionTime !== undefined ? { ingestionTime: e.ingestionTime } : {}),
  };
}

/** Every listed verdict of a state, as `group|stream|timestamp`. */
function keys(report: ReconcileRun, state: EventVerdict['state']): string[] {
  return report.groups
    .flatMap((g) =>
      g.events.filter((v) => v.state === state).map((v) => `${g.logGroup}|${v.logStream}|${v.timestamp}`),
    )
    .sort();
}

describe('kfek reconcile against the local pipeline', () => {
  test(
    'finds exactly the lost events, heals them, and a second run finds nothing missing',
    async () => {
      const started = Date.now();
      const steps: string[] = [];
      const step = (name: string): void => {
        steps.push(`${name} ${((Date.now() - started) / 1000).toFixed(1)} s`);
      };
      const { clients, resources } = pipeline();
      const { spec, node } = stack.get();
      // Minutes 0-30 of the window are 40 to 10 minutes old: judged by any lag the test uses.
      const base = minuteOf(Date.now()) - 40 * 60_000;
      const minute = (m: number): number => base + m * 60_000;
      const expected = { missing: [] as string[], failed: [] as string[], discarded: [] as string[] };

      // GIVEN healthy traffic (minutes 0-9)
      await write(
        G.healthy,
        'h',
        base,
        range(120, (i) => [i * 5, info(`healthy ${i}`)]),
      );
      // and a subscription removed for minute 12 of the gap group
      await write(
        G.gap,
        'g',
        minute(10),
        range(30, (i) => [i * 4, info(`before ${i}`)]),
      );
      await settle();
      const filter = {
        logGroupName: G.gap,
        filterName: `${spec.logGroups[0].filterName}`,
      };
      await clients.logs.send(new DeleteSubscriptionFilterCommand(filter));
      expected.missing.push(
        ...(await write(
          G.gap,
          'g',
          minute(12),
          range(12, (i) => [i * 5, info(`unsubscribed ${i}`)]),
        )),
      );
      await clients.logs.send(
        new PutSubscriptionFilterCommand({
          ...filter,
          filterPattern: '',
          destinationArn: resources.rawStreamArn,
          roleArn: `arn:aws:iam::${spec.accountId}:role/kfek-local-cwl-to-kinesis`,
        }),
      );
      await write(
        G.gap,
        'g',
        minute(13),
        range(30, (i) => [i * 4, info(`after ${i}`)]),
      );
      // and records of minute 16 gone before the transform read them
      await write(
        G.records,
        'r',
        minute(15),
        range(20, (i) => [i * 3, info(`read ${i}`)]),
      );
      await settle();
      faults.lose.add(G.records);
      expected.missing.push(
        ...(await write(
          G.records,
          'r',
          minute(16),
          range(10, (i) => [i * 6, info(`gone ${i}`)]),
        )),
      );
      await settle();
      faults.lose.delete(G.records);
      // and the search route's index of the day deleted (minute 22)
      expected.missing.push(
        ...(await write(
          G.search,
          'x',
          minute(22),
          range(15, (i) => [i * 4, info(`indexed ${i}`)]),
        )),
      );
      await settle();
      const lostWrittenAt = Date.now();
      const deleted = await fetch(`${node.url}/search-*`, { method: 'DELETE' });
      expect(deleted.status).toBe(200);
      // and events not lost: a drop rule and Java traces in minute 18, one trace across the 19/20 boundary
      const payments: (readonly [number, string])[] = [
        ...range(5, (i) => [i * 10, `GET /health 200 ${i}`] as const),
        ...range(3, (i) => [i * 10 + 2, `java.lang.IllegalStateException: boom ${i}`] as const),
        ...range(3, (i) => [i * 10 + 3, `\tat com.example.Pay.charge(Pay.java:${i})`] as const),
        ...range(3, (i) => [i * 10 + 4, '\tat com.example.Main.main(Main.java:7)'] as const),
        ...range(5, (i) => [i * 10 + 5, info(`paid ${i}`)] as const),
        [119, 'java.lang.RuntimeException: across the minute'],
        [120.5, '\tat com.example.Late.x(Late.java:1)'],
        [121, '\tat com.example.Late.y(Late.java:2)'],
      ];
      await write(G.payments, 'p', minute(18), payments);
      // and documents OpenSearch refuses: reconcileShape is an object, then text (minute 24)
      await write(G.failed, 'f', minute(24), [
        [0, JSON.stringify({ level: 'INFO', message: 'shape', reconcileShape: { a: 1 } })],
      ]);
      await settle();
      expected.failed.push(
        ...(await write(
          G.failed,
          'f',
          minute(24),
          range(4, (i) => [
            i + 1,
            JSON.stringify({ level: 'INFO', message: 'clash', reconcileShape: `flat ${i}` }),
          ]),
        )),
      );
      // (delivered and refused before the next fault: a batch holding both groups would be discarded whole)
      await settle();
      // and a batch the transform keeps failing on (minute 26)
      faults.fail.add(G.discarded);
      expected.discarded.push(
        ...(await write(
          G.discarded,
          'd',
          minute(26),
          range(6, (i) => [i * 2, info(`failing ${i}`)]),
        )),
      );
      await settle();
      faults.fail.delete(G.discarded);
      step('losses made');
      // and, held back by the pipeline: an event of minute 28 taken in just now, and one of the current minute
      faults.defer.add(G.late);
      // Ten seconds after the lost events were taken in, so a lag fits half way between the two with 5 s to spare on
      // each side: the command's clock starts at the lag's computation but runs on while the command starts (reading
      // the domain's templates first), and with 2 s here a slow start on a fresh CI machine read the held event as
      // missing.
      while (Date.now() < lostWrittenAt + 10_000) await new Promise((resolve) => setTimeout(resolve, 100));
      const heldWrittenAt = Date.now();
      const [pending] = await write(G.late, 'l', minute(28), [
        [0, info('taken in just now, not delivered yet')],
      ]);
      await write(G.late, 'now', Date.now(), [[0, info('of a minute newer than the lag')]]);
      await settle();
      // The lag: shorter than the time since the lost events were taken in, longer than since the held one was (half
      // way between the two, at the run's start).
      const lagAt = Date.now();
      const lag = `${Math.round((lagAt - (lostWrittenAt + heldWrittenAt) / 2) / 1000)}s`;

      // WHEN reconcile runs without --heal
      const first = await reconcile(['--since', new Date(base - 60_000).toISOString(), '--lag', lag], lagAt);
      step('first run');

      // THEN it finds exactly the missing events, and exits 1
      expect(first.stderr).not.toMatch(/kfek: /);
      expect(first.code).toBe(1);
      expect(keys(first.report, 'missing')).toEqual([...expected.missing].sort());
      // the refused documents and the failed batch are kept, with where
      const kept = first.report.groups.flatMap((g) =>
        g.events
          .filter((v) => v.state === 'kept')
          .map((v) => ({ key: `${g.logGroup}|${v.logStream}|${v.timestamp}`, kept: v.kept })),
      );
      expect(
        kept
          .filter((k) => k.kept?.kind === 'failed-document')
          .map((k) => k.key)
          .sort(),
      ).toEqual(expected.failed.sort());
      expect(
        kept
          .filter((k) => k.kept?.kind === 'discarded-batch')
          .map((k) => k.key)
          .sort(),
      ).toEqual(expected.discarded.sort());
      expect(kept.every((k) => k.kept?.location.startsWith(stack.get().workDir) === true)).toBe(true);
      // dropped and joined events are accounted for, never missing
      const pay = first.report.groups.find((g) => g.logGroup === G.payments);
      expect(pay?.states).toMatchObject({ dropped: 5, joined: 8, missing: 0 });
      expect(pay?.droppedByRule).toEqual({ 'health-checks': 5 });
      // the event taken in within the lag is late, not missing; the one of the newest minute is not judged at all
      expect(keys(first.report, 'pending')).toEqual([pending]);
      const late = first.report.groups.find((g) => g.logGroup === G.late);
      expect(late?.events.map((v) => v.logStream)).toEqual(['l']);
      // healthy traffic costs no exact read
      const healthy = first.report.groups.find((g) => g.logGroup === G.healthy);
      expect(healthy).toMatchObject({
        exactMinutes: 0,
        states: expect.objectContaining({ searchable: 120 }),
      });
      expect(first.report.totals).toMatchObject({
        missing: expected.missing.length,
        kept: expected.failed.length + expected.discarded.length,
        pending: 1,
        healed: 0,
      });

      // WHEN the held records arrive, and reconcile runs with --heal
      faults.defer.delete(G.late);
      expect(faults.held.length).toBeGreaterThan(0);
      await clients.kinesis.send(
        new PutRecordsCommand({ StreamName: spec.rawStream.name, Records: faults.held }),
      );
      await settle();
      const second = await reconcile([
        '--since',
        new Date(base - 60_000).toISOString(),
        '--lag',
        lag,
        '--heal',
        '--heal-timeout',
        '60s',
      ]);
      step('healing run');

      // THEN exactly the missing events were sent and are searchable again; nothing kept was sent
      expect(second.code).toBe(0);
      expect(keys(second.report, 'healed')).toEqual([...expected.missing].sort());
      expect(second.report.heal).toMatchObject({
        sent: expected.missing.length,
        healed: expected.missing.length,
        notSent: 0,
      });
      expect(second.report.totals).toMatchObject({
        missing: 0,
        pending: 0,
        kept: expected.failed.length + expected.discarded.length,
      });

      // WHEN reconcile runs again
      await settle();
      const third = await reconcile(['--since', new Date(base - 60_000).toISOString(), '--lag', lag]);
      step('third run');

      // THEN nothing is missing
      expect(third.code).toBe(0);
      expect(third.report.totals).toMatchObject({ missing: 0, healed: 0, pending: 0 });
      expect(third.report.groups.find((g) => g.logGroup === G.gap)?.exactMinutes).toBe(0);

      // WHEN the healed events of the gap group are healed a second time (sent again although searchable), as the
      // heal sends them: with their arrival, CloudWatch Logs' ingestion time
      const gap = third.report.groups.find((g) => g.logGroup === G.gap);
      const again =
        (
          await clients.logs.send(
            new FilterLogEventsCommand({
              logGroupName: G.gap,
              startTime: minute(12),
              endTime: minute(13) - 1,
            }),
          )
        ).events ?? [];
      expect(again).toHaveLength(12);
      const healer = rawStreamHealer({
        kinesis: kinesisPort(clients.kinesis),
        rawStream: resources.rawStreamArn,
        rotation: resolveConfig(CONTEXT, 'teams').delivery.indexRotation,
        clock: { now: Date.now, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
        meter: new RequestMeter(),
      });
      const gapGroup = {
        logGroup: G.gap,
        owner: spec.accountId,
        filterPattern: '',
        subscriptionFilters: [spec.logGroups[0].filterName],
      };
      await healer.send(gapGroup, again.map(toLogEvent), (e) => e.ingestionTime ?? e.timestamp);
      await settle();
      const fourth = await reconcile(['--since', new Date(base - 60_000).toISOString(), '--lag', lag]);

      // THEN nothing changed: the same documents, overwritten in their index (no second copy to count)
      expect(fourth.code).toBe(0);
      expect(fourth.report.groups.find((g) => g.logGroup === G.gap)).toMatchObject({
        openSearchEvents: gap?.openSearchEvents,
        cloudWatchEvents: gap?.cloudWatchEvents,
        exactMinutes: 0,
      });

      // AND the envelope's arrival names the index on the real node: one of those events sent with yesterday's
      // arrival lands in yesterday's index of its stem, beside today's copy
      const yesterday = Date.now() - 86_400_000;
      await healer.send(gapGroup, [toLogEvent(again[0])], () => yesterday);
      await settle();
      const id = documentIdFor(G.gap, again[0].logStreamName ?? '', String(again[0].eventId));
      const search = createHttpClient({ baseUrl: node.url });
      // (a new index's first refresh may not have run yet)
      await search.request({ method: 'POST', path: '/_refresh' });
      const hits = await search.request({
        method: 'POST',
        path: '/_search',
        body: { query: { ids: { values: [id] } } },
      });
      const indices = ((hits.body as { hits: { hits: { _index: string }[] } }).hits.hits ?? []).map(
        (h) => h._index,
      );
      const day = (t: number): string => new Date(t).toISOString().slice(0, 10);
      expect(indices.map((i) => i.slice(-10)).sort()).toEqual([day(yesterday), day(Date.now())].sort());
      process.stderr.write(
        `reconcile e2e: ${JSON.stringify(first.report.totals)}; requests first ${JSON.stringify(first.report.requests)}, ` +
          `third ${JSON.stringify(third.report.requests)}; heal ${JSON.stringify(second.report.heal)}; ` +
          `exact tier ${first.report.exactTier.events} events in ${first.report.exactTier.durationInMillis} ms; ${steps.join(', ')}\n`,
      );
    },
    4 * STEP_TIMEOUT_MILLIS,
  );
});
