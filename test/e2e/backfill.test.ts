/**
 * End-to-end: `kfek backfill` against the pipeline of `npm start`, real components only (moto for CloudWatch Logs
 * and Kinesis, a real OpenSearch node, the real transform handler under the local event-source loop, the local
 * Firehose stand-in). A log group holds 50,000 events written before its subscription existed; after the
 * subscription, live events arrive inside the backfill's window (so both the subscription and the backfill deliver
 * them) and after it, during the backfill. The backfill is interrupted (Ctrl-C, the command's stop signal) and
 * resumed. Every event must then be searchable exactly once, and the dry run's estimate within 10% of what the
 * backfill read.
 *
 * moto runs one request at a time here (as `npm start` runs it): the backfill's PutRecords, the subscription's
 * writes and the event source's reads hit the raw stream at once, and threaded moto can give two records one
 * sequence number.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { PutRecordCommand } from '@aws-sdk/client-kinesis';
import * as path from 'node:path';
import {
  CreateLogGroupCommand,
  CreateLogStreamCommand,
  FilterLogEventsCommand,
  PutLogEventsCommand,
  PutSubscriptionFilterCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { run } from '../../cli/main';
import { resolveConfig } from '../../core/config';
import { generateEvents } from '../../core/log-generator';
import type { LocalPipeline } from '../../scripts/local/pipeline';
import type { OutgoingLogEvent } from '../../scripts/local/sender';
import { countDistinctEvents, countDocuments } from '../../scripts/local/summary';
import { LocalStackRunner } from '../helpers/local-stack';
import { OPENSEARCH_START_TIMEOUT_MILLIS } from '../helpers/opensearch';
import { testTempDir } from '../helpers/temp-dirs';

const HISTORY_GROUP = '/kfek/backfill/history';
/** A centralized log group: CloudWatch Logs centralization brings accounts A's and B's events into it. */
const CENTRAL_GROUP = '/kfek/backfill/central';
const ACCOUNT_A = '111111111111';
const ACCOUNT_B = '222222222222';
const HISTORY_EVENTS = 50_000;
const HISTORY_STREAMS = 5;
const LIVE_IN_WINDOW = 1_000;
const CONTEXT = {
  kfek: {
    profiles: {
      backfill: {
        // The pipeline subscribes only this group at its start; the history group is subscribed by the test later.
        sources: { logGroups: [{ name: '/kfek/backfill/other', create: true }] },
        streams: { raw: { shardCount: 2 }, events: { shardCount: 2 } },
        transform: { timeoutSeconds: 30, batchSize: 5, retryAttempts: 20, maxBatchingWindowSeconds: 0 },
        delivery: { retryDurationSeconds: 60 },
        openSearch: { indexTemplate: { replicas: 0 } },
        // Two teams take the centralized group's events by source account (docs/teams-and-routes.md).
        routes: [
          {
            name: 'teama',
            match: { logGroup: CENTRAL_GROUP, account: ACCOUNT_A },
            indexStem: 'teama',
            readerBackendRoles: ['team-a'],
            processing: { mask: { detectors: ['email'] }, multiline: { mode: 'java' } },
          },
          {
            name: 'teamb',
            match: { logGroup: CENTRAL_GROUP, account: ACCOUNT_B },
            indexStem: 'teamb',
            readerBackendRoles: ['team-b'],
          },
        ],
      },
    },
  },
};
/** Each step's bound; the whole file stays within about two minutes on a quiet 2-core machine. */
const STEP_TIMEOUT_MILLIS = 60_000;

const stack = new LocalStackRunner();

beforeAll(async () => {
  await stack.start(resolveConfig(CONTEXT, 'backfill'), {
    workDirPrefix: 'kfek-backfill-',
    deliveryBufferIntervalInMillis: 300,
    serializedMoto: true,
  });
}, OPENSEARCH_START_TIMEOUT_MILLIS);

afterAll(async () => {
  await stack.stop();
}, 60_000);

const pipeline = (): LocalPipeline => stack.get().pipeline;

/** `npx kfek backfill <args>` in-process against moto: the exit code and what it printed. */
async function backfill(
  args: readonly string[],
  stop?: AbortSignal,
  cdkJson?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(
    ['backfill', '--endpoint', stack.get().moto.endpoint, '--region', stack.get().spec.region, ...args],
    {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: {},
      ...(stop !== undefined ? { stop } : {}),
      ...(cdkJson !== undefined ? { cdkJson } : {}),
    },
  );
  return { code, stdout, stderr };
}

/** Generated log lines (JSON app logs, Lambda platform lines, Log4J) of `streams` streams, `from` to `to`. */
function events(prefix: string, n: number, streams: number, from: number, to: number): OutgoingLogEvent[] {
  const step = (to - from) / n;
  return generateEvents(n, { runId: prefix, seed: 7 }, (i) => Math.floor(from + i * step)).map((e, i) => ({
    logGroupName: HISTORY_GROUP,
    logStreamName: `${prefix}-${i % streams}`,
    timestamp: e.timestamp,
    message: e.message,
  }));
}

/** Polls `check` every 50 ms until it answers true; fails after `timeoutInMillis`. */
async function waitFor(
  what: string,
  check: () => boolean,
  timeoutInMillis = STEP_TIMEOUT_MILLIS,
): Promise<void> {
  const deadline = Date.now() + timeoutInMillis;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutInMillis} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Writes live events now and then (stream `live-after`, timestamps now: after the window) until stopped. */
function liveTraffic(): { stop: () => Promise<number> } {
  let stopped = false;
  let written = 0;
  const loop = (async () => {
    for (let batch = 0; !stopped; batch += 1) {
      const now = Date.now();
      await pipeline().send(
        Array.from({ length: 50 }, (_, i) => ({
          logGroupName: HISTORY_GROUP,
          logStreamName: 'live-after',
          timestamp: now + i,
          message: JSON.stringify({ level: 'INFO', message: `live after the window ${batch}-${i}` }),
        })),
      );
      written += 50;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return written;
    },
  };
}

interface Summary {
  readonly counts: { read: number; written: number; skipped: number; failed: number; messageBytes: number };
  readonly thisRun: { read: number; written: number; skipped: number };
  readonly interrupted: boolean;
  readonly runs: number;
}

describe('kfek backfill against the local pipeline', () => {
  test(
    'history from before the subscription plus live traffic: every event searchable once, across an interruption',
    async () => {
      const { clients, resources } = pipeline();
      const now = Date.now();
      const steps: string[] = [];
      let stepStart = now;
      const step = (name: string): void => {
        steps.push(`${name} ${((Date.now() - stepStart) / 1000).toFixed(1)} s`);
        stepStart = Date.now();
      };
      // GIVEN 50,000 events written before the log group had a subscription (50 to 10 minutes ago)
      await clients.logs.send(new CreateLogGroupCommand({ logGroupName: HISTORY_GROUP }));
      const history = events(
        'history',
        HISTORY_EVENTS,
        HISTORY_STREAMS,
        now - 50 * 60_000,
        now - 10 * 60_000,
      );
      await pipeline().send(history);
      step('history written');
      // and then the subscription, as the Sources stack would create it, and live events inside the window
      await clients.logs.send(
        new PutSubscriptionFilterCommand({
          logGroupName: HISTORY_GROUP,
          filterName: 'kfek-to-raw-stream',
          filterPattern: '',
          destinationArn: resources.rawStreamArn,
          roleArn: `arn:aws:iam::${stack.get().spec.accountId}:role/kfek-local-cwl-to-kinesis`,
        }),
      );
      await pipeline().send(events('live-in', LIVE_IN_WINDOW, 1, now - 10 * 60_000, now - 1_000));
      const until = new Date(Date.now()).toISOString();
      const stateDir = testTempDir('kfek-backfill-state-');
      const job = [
        '--log-group',
        HISTORY_GROUP,
        '--since',
        '2h',
        '--until',
        until,
        '--raw-stream',
        resources.rawStreamArn,
        '--state-dir',
        stateDir,
        '--rate',
        '10000',
      ];

      // WHEN the window is estimated
      const dryRun = await backfill([...job, '--dry-run', '--json']);
      expect(dryRun.stderr).not.toMatch(/kfek: /);
      expect(dryRun.code).toBe(0);
      const estimate = (JSON.parse(dryRun.stdout) as { total: { events: number; messageBytes: number } })
        .total;
      step('dry run');

      // WHEN it is backfilled while live events keep arriving, stopped (Ctrl-C) part-way, and resumed
      const live = liveTraffic();
      const stop = new AbortController();
      const checkpoint = path.join(stateDir, 'checkpoint.json');
      const written = (): number => {
        try {
          return (JSON.parse(readFileSync(checkpoint, 'utf8')) as Summary).counts.written;
        } catch {
          return 0;
        }
      };
      const interrupted = backfill([...job, '--json'], stop.signal);
      await waitFor('the first 20,000 events written', () => written() >= 20_000);
      stop.abort();
      const first = await interrupted;
      step('first run');
      const resumed = await backfill([...job, '--resume', '--json']);
      step('resumed run');
      const liveAfter = await live.stop();
      await pipeline().waitUntilSettled(STEP_TIMEOUT_MILLIS);
      step('pipeline settled');

      // THEN the first run stopped part-way and the second finished it
      expect(first.code).toBe(130);
      const firstSummary = JSON.parse(first.stdout) as Summary;
      expect(firstSummary.interrupted).toBe(true);
      expect(firstSummary.counts.written).toBeLessThan(HISTORY_EVENTS + LIVE_IN_WINDOW);
      expect(resumed.stderr).not.toMatch(/kfek: /);
      expect(resumed.code).toBe(0);
      const summary = JSON.parse(resumed.stdout) as Summary;
      expect(summary).toMatchObject({ interrupted: false, runs: 2 });
      // Every event of the window written once in the whole backfill, none failed
      expect(summary.counts).toMatchObject({ written: HISTORY_EVENTS + LIVE_IN_WINDOW, failed: 0 });
      // and the resumed run read again at most the one page the interruption cut short (besides the events of the
      // checkpoint's millisecond, which it skipped as written).
      expect(
        firstSummary.thisRun.read +
          summary.thisRun.read -
          summary.thisRun.skipped -
          (HISTORY_EVENTS + LIVE_IN_WINDOW),
      ).toBeLessThanOrEqual(10_000);

      // THEN every event is searchable exactly once: history, live in the window (sent twice), live after it
      const { search, spec } = stack.get();
      const streams = [
        ...Array.from({ length: HISTORY_STREAMS }, (_, i) => `history-${i}`),
        'live-in-0',
        'live-after',
      ];
      const all = HISTORY_EVENTS + LIVE_IN_WINDOW + liveAfter;
      expect(await countDistinctEvents(search, spec.delivery.indexPattern, streams)).toBe(all);
      expect(await countDocuments(search, spec.delivery.indexPattern, streams)).toBe(all);

      // THEN the dry run's estimate was within 10% of what the backfill read
      const real = summary.counts;
      expect(Math.abs(estimate.events - real.written) / real.written).toBeLessThan(0.1);
      expect(Math.abs(estimate.messageBytes - real.messageBytes) / real.messageBytes).toBeLessThan(0.1);
      // (printed for the record: the figures docs/operations.md quotes)
      process.stderr.write(
        `backfill e2e: estimate ${estimate.events} events / ${estimate.messageBytes} bytes, real ${real.written} / ` +
          `${real.messageBytes}; first run ${firstSummary.thisRun.written} written, resumed ${summary.thisRun.written}; ` +
          `live after the window ${liveAfter}; ${steps.join(', ')}\n`,
      );
    },
    3 * STEP_TIMEOUT_MILLIS,
  );
});

describe('a centralized log group (issue 29)', () => {
  test(
    "routes and joins each account's events apart, and backfill refuses to send them where live did not",
    async () => {
      const { clients, resources, search, spec } = { ...pipeline(), ...stack.get() };
      // GIVEN a centralized group in the account: its events, as FilterLogEvents returns them
      await clients.logs.send(new CreateLogGroupCommand({ logGroupName: CENTRAL_GROUP }));
      await clients.logs.send(
        new CreateLogStreamCommand({ logGroupName: CENTRAL_GROUP, logStreamName: 'shared' }),
      );
      const now = Date.now();
      const lines: Array<[string, string]> = [
        [ACCOUNT_A, 'ERROR payment failed for carol@example.org'],
        [ACCOUNT_B, 'ERROR search failed'],
        [ACCOUNT_A, '\tat com.example.Pay.run(dave@example.org)'],
        [ACCOUNT_B, '\tat com.example.Search.run(Search.java:1)'],
      ];
      await clients.logs.send(
        new PutLogEventsCommand({
          logGroupName: CENTRAL_GROUP,
          logStreamName: 'shared',
          logEvents: lines.map(([, message], i) => ({ timestamp: now - 60_000 + i, message })),
        }),
      );
      const stored =
        (await clients.logs.send(new FilterLogEventsCommand({ logGroupName: CENTRAL_GROUP }))).events ?? [];
      expect(stored).toHaveLength(lines.length);
      // and the live envelope centralization delivers for them: each event with its source account
      const envelope = {
        messageType: 'DATA_MESSAGE',
        owner: spec.accountId,
        logGroup: CENTRAL_GROUP,
        logStream: 'shared',
        subscriptionFilters: ['central'],
        logEvents: stored.map((e, i) => ({
          id: e.eventId,
          timestamp: e.timestamp,
          message: e.message,
          extractedFields: { '@aws.account': lines[i][0], '@aws.region': spec.region },
        })),
      };
      await clients.kinesis.send(
        new PutRecordCommand({
          StreamARN: resources.rawStreamArn,
          Data: gzipSync(Buffer.from(JSON.stringify(envelope))),
          PartitionKey: 'central',
        }),
      );
      await pipeline().waitUntilSettled(STEP_TIMEOUT_MILLIS);
      const documents = async (index: string) =>
        (
          await search.json<{
            hits: { hits: Array<{ _source: { message: string; kfek?: { joined?: number } } }> };
          }>('POST', `/${index}/_search`, {
            size: 20,
            query: { term: { 'cloudwatch.logGroup': CENTRAL_GROUP } },
            sort: ['@timestamp'],
          })
        ).hits.hits.map((h) => h._source);
      await search.json('POST', '/teama-*,teamb-*,logs-*/_refresh');

      // THEN A's continuation joined A's event only, masked by A's route; B's line stayed B's own, in B's index
      expect((await documents('teama-*')).map((d) => [d.message, d.kfek?.joined])).toEqual([
        ['ERROR payment failed for [masked:email]\n\tat com.example.Pay.run([masked:email])', 1],
      ]);
      expect((await documents('teamb-*')).map((d) => d.message)).toEqual([
        'ERROR search failed',
        '\tat com.example.Search.run(Search.java:1)',
      ]);
      expect(await documents(spec.delivery.indexPattern)).toEqual([]);

      // WHEN the group is backfilled (FilterLogEvents knows no source account)
      const cdkJson = path.join(testTempDir('kfek-backfill-central-'), 'cdk.json');
      writeFileSync(cdkJson, JSON.stringify({ context: CONTEXT }));
      const refused = await backfill(
        [
          '--profile',
          'backfill',
          '--log-group',
          CENTRAL_GROUP,
          '--since',
          '1h',
          '--raw-stream',
          resources.rawStreamArn,
        ],
        undefined,
        cdkJson,
      );
      // THEN it is refused, with the reason, and nothing reached the default route's readers
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/cannot reproduce the live documents of \/kfek\/backfill\/central/);
      await pipeline().waitUntilSettled(STEP_TIMEOUT_MILLIS);
      await search.json('POST', '/teama-*,teamb-*,logs-*/_refresh');
      expect(await documents(spec.delivery.indexPattern)).toEqual([]);
      expect(await documents('teama-*')).toHaveLength(1);
    },
    4 * STEP_TIMEOUT_MILLIS,
  );
});
