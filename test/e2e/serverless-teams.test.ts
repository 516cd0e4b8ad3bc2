/**
 * The teams end to end on OpenSearch Serverless (issue 42, docs/serverless.md, docs/teams-and-routes.md): cdk.json's
 * `teams` profile (payments: prefix match, e-mail/card/key/JWT masking, health checks dropped, Java traces joined,
 * 30 days; search: exact log group, e-mail/IPv4 masking, DEBUG dropped by field, Python traces joined, 7 days; the
 * default route) on `openSearch.kind: serverless` with `delivery.mode: direct`, every reader an IAM role ARN. The
 * local runner's own code (runLocal) runs it: moto, the shipped transform, the shipped indexer signing for `aoss`, the
 * conformance stand-in in front of a real node, provisioned with `provisionCollection`, and the stand-in ENFORCING the
 * data access policy kfek deploys (core/opensearch/serverless-access.ts), built for this config with the principals
 * the CDK app makes: the indexer writes as its own writer role, the provisioner (the local key) is admin, `kfek
 * reconcile --service aoss` judges the run as the reconcile role, the retention function deletes as its own role, and
 * each route's readers and the default route's read as themselves.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { run } from '../../cli/main';
import type { ReconcileRun } from '../../cli/reconcile/service';
import { indexNameFor } from '../../core/config';
import { retentionFamiliesOf } from '../../core/config/serverless';
import { retentionEnvironment } from '../../core/contracts/retention-env';
import { createHttpClient, type OpenSearchHttpClient } from '../../core/opensearch/http';
import { collectionClient } from '../../scripts/local/local-collection';
import { parseStartOptions, type StartOptions } from '../../scripts/local/options';
import { Processes } from '../../scripts/local/processes';
import { reconcileArgs } from '../../scripts/local/reconcile-step';
import { type LocalRunResult, runLocal } from '../../scripts/local/run';
import type { OutgoingLogEvent } from '../../scripts/local/sender';
import type { Refusal } from '../../scripts/serverless/rules';
import type { RunningStandin, StandinIdentity } from '../../scripts/serverless/standin';
import { signedAs } from '../helpers/credentials-env';
import { OPENSEARCH_START_TIMEOUT_MILLIS } from '../helpers/opensearch';
import { runRetentionHandlerAs, seedIndices } from '../helpers/retention-run';
import {
  TEAMS_INDEXER,
  TEAMS_PROVISIONER,
  TEAMS_READERS,
  TEAMS_RECONCILER,
  TEAMS_RETENTION,
  TEAMS_SERVERLESS_CONTEXT,
  teamsAccessPolicy,
  teamsServerlessConfig,
} from '../helpers/teams-serverless';
import {
  APP_VALUES,
  HEALTH_CHECK,
  PAYMENTS_SECRETS,
  SEARCH_SECRETS,
  TEAMS_GROUPS,
  teamsWorkload,
  type WrittenTrace,
} from '../helpers/teams-workload';

jest.setTimeout(OPENSEARCH_START_TIMEOUT_MILLIS + 300_000);

const BLOCKS = 8;
const STREAMS = 2;
const RUNS = BLOCKS * STREAMS;
/** Events per block: payments 10 (1 health check, a 5-line trace), search 7 (1 DEBUG, a 4-line traceback), app 4. */
const EVENTS = RUNS * (10 + 7 + 4);

const READERS = TEAMS_READERS;
const config = teamsServerlessConfig();
const policy = teamsAccessPolicy(config);

type Doc = { _index: string; _source: { message?: string } & Record<string, unknown> };

describe('the teams profile on the Serverless stand-in, readers under the data access policy', () => {
  const processes = new Processes();
  const workDir = mkdtempSync(path.join(tmpdir(), 'kfek-serverless-teams-'));
  const lines: string[] = [];
  let result: LocalRunResult;
  let traces: readonly WrittenTrace[] = [];
  let written: readonly OutgoingLogEvent[] = [];
  let refusedDuringRun: readonly Refusal[] = [];

  const collection = (): RunningStandin => {
    if (processes.collection === undefined) throw new Error('the run started no stand-in');
    return processes.collection;
  };
  const region = (): string => config.env.region ?? 'us-east-1';
  const admin = (): OpenSearchHttpClient => collectionClient(collection().url, region(), 3);
  const as = (who: StandinIdentity): OpenSearchHttpClient =>
    createHttpClient({
      baseUrl: collection().url,
      maxAttempts: 1,
      auth: { kind: 'sigv4', region: region(), service: 'aoss', credentials: who },
    });
  const docs = async (pattern: string): Promise<Doc[]> => {
    const answer = await admin().request({
      method: 'POST',
      path: `/${pattern}/_search`,
      body: { size: 10_000, query: { match_all: {} } },
    });
    expect(answer.status).toBe(200);
    return (answer.body as { hits: { hits: Doc[] } }).hits.hits;
  };

  beforeAll(async () => {
    // GIVEN the teams profile on a collection, a fresh node and moto, the stand-in enforcing kfek's policy
    const options = parseStartOptions([
      '--events',
      String(EVENTS),
      '--no-warm-up',
      '--no-reconcile',
    ]) as StartOptions;
    // WHEN the runner writes the teams' lines through the whole pipeline
    result = await runLocal(
      {
        ...options,
        workDir,
        config,
        workload: (runId, _count, _groups, _streams, now) => {
          const workload = teamsWorkload(runId, now, BLOCKS, STREAMS);
          traces = workload.traces;
          written = workload.events;
          return workload.events;
        },
        collectionAccess: {
          accessPolicy: policy,
          indexer: TEAMS_INDEXER,
          provisioner: TEAMS_PROVISIONER,
          identities: [...Object.values(READERS), TEAMS_RETENTION, TEAMS_RECONCILER],
        },
      },
      processes,
      () => false,
      (line) => lines.push(line),
    );
    refusedDuringRun = [...collection().refusals];
  });

  afterAll(async () => {
    await processes.stopAll();
    rmSync(workDir, { recursive: true, force: true });
  });

  test('every kept event is searchable exactly once; drops are counted by rule and joined lines as joined', () => {
    // THEN
    const { summary } = result;
    expect(summary.eventsWritten).toBe(EVENTS);
    expect(summary.processing).toEqual({
      droppedByRule: { 'health-checks': RUNS, debug: RUNS },
      joinedLines: RUNS * 8,
    });
    const kept = EVENTS - 2 * RUNS - 8 * RUNS;
    expect(summary.eventsSearchable).toBe(kept);
    expect(summary.documentsSearchable).toBe(kept);
    expect(summary.delivery.documentsFailed).toBe(0);
    const byFamily = Object.fromEntries(
      (summary.documentsByIndex ?? []).map((i) => [i.index.replace(/-\d{4}-\d{2}-\d{2}$/, ''), i.documents]),
    );
    expect(byFamily).toEqual({ payments: RUNS * 5, search: RUNS * 2, logs: RUNS * 4 });
    expect(refusedDuringRun).toEqual([]);
    expect(lines.join('\n')).toContain('data access policy enforced');
  });

  test('kfek reconcile, signing as the reconcile role, accounts for every event: nothing missing', async () => {
    // GIVEN the profile in a cdk.json of the test's own (the CLI reads its profile from one), the run's resources
    const cdkJson = path.join(workDir, 'cdk.json');
    writeFileSync(cdkJson, JSON.stringify({ context: TEAMS_SERVERLESS_CONTEXT }));
    const { moto, pipeline } = processes;
    if (moto === undefined || pipeline === undefined) throw new Error('no run');
    const argv = reconcileArgs({
      profile: config.profile,
      logGroups: Object.values(TEAMS_GROUPS),
      awsEndpoint: moto.endpoint,
      region: region(),
      openSearchUrl: collection().url,
      rawStreamArn: pipeline.resources.rawStreamArn,
      deadLetterBucket: pipeline.resources.deadLetterBucket,
      workDir,
      since: new Date(Math.min(...written.map((e) => e.timestamp))),
    });
    let stdout = '';
    let stderr = '';
    // WHEN
    const code = await signedAs(TEAMS_RECONCILER, () =>
      run([...argv, '--service', 'aoss', '--json'], {
        stdout: { write: (text: string) => ((stdout += text), true) },
        stderr: { write: (text: string) => ((stderr += text), true) },
        env: {},
        cdkJson,
      }),
    );
    // THEN
    // (On a failure the comparison shows what the command printed.)
    expect({ code, printed: code === 0 ? '' : `${stderr}\n${stdout.slice(0, 3000)}` }).toEqual({
      code: 0,
      printed: '',
    });
    const report = JSON.parse(stdout) as ReconcileRun;
    expect(report.totals).toMatchObject({ missing: 0, kept: 0, pending: 0 });
    const group = (name: string) => report.groups.find((g) => g.logGroup === name);
    expect(group(TEAMS_GROUPS.payments)?.states).toMatchObject({
      dropped: RUNS,
      joined: RUNS * 4,
      missing: 0,
    });
    expect(group(TEAMS_GROUPS.search)?.states).toMatchObject({ dropped: RUNS, joined: RUNS * 4, missing: 0 });
    expect(group(TEAMS_GROUPS.app)?.states).toMatchObject({ searchable: RUNS * 4, missing: 0 });
    expect(collection().refusals.filter((r) => r.reason.includes(TEAMS_RECONCILER.principal))).toEqual([]);
    expect(result.ok).toBe(true);
  });

  test.each([
    ['payments', 'payments-*', ['search-*', 'logs-*']],
    ['search', 'search-*', ['payments-*', 'logs-*']],
    ['logs', 'logs-*', ['payments-*', 'search-*']],
  ] as const)(
    "the %s readers read their family's documents and are refused the others",
    async (who, own, others) => {
      // GIVEN what the admin sees of the reader's own family
      const expected = (await docs(own)).length;
      expect(expected).toBeGreaterThan(0);
      const reader = as(READERS[who]);
      // WHEN the reader searches its own family, each other family, and its own with another
      const mine = await reader.request({
        method: 'POST',
        path: `/${own}/_search`,
        body: { size: 0, track_total_hits: true },
      });
      const counted = await reader.request({ method: 'POST', path: `/${own}/_count` });
      const refused = await Promise.all(
        [...others, `${own},${others[0]}`].map((p) =>
          reader.request({ method: 'POST', path: `/${p}/_search`, body: { size: 1 } }),
        ),
      );
      // THEN
      expect(mine.status).toBe(200);
      expect((mine.body as { hits: { total: { value: number } } }).hits.total.value).toBe(expected);
      expect((counted.body as { count: number }).count).toBe(expected);
      expect(refused.map((r) => r.status)).toEqual(others.map(() => 403).concat(403));
      expect(collection().refusals.at(-1)?.reason).toContain(READERS[who].principal);
    },
  );

  test('masked values are never stored in a route that masks them; the default route keeps its own', async () => {
    // WHEN
    const payments = JSON.stringify(await docs('payments-*'));
    const search = JSON.stringify(await docs('search-*'));
    const app = JSON.stringify(await docs('logs-*'));
    // THEN no raw secret in the routes' indices, their masks in their place, the default route unmasked
    const stored = (text: string, values: Record<string, string>): string[] =>
      Object.values(values).filter((value) => text.includes(value));
    expect(stored(payments, PAYMENTS_SECRETS)).toEqual([]);
    expect(stored(search, SEARCH_SECRETS)).toEqual([]);
    for (const detector of ['email', 'creditCard', 'awsAccessKeyId', 'awsSecretKey', 'jwt']) {
      expect(payments).toContain(`[masked:${detector}]`);
    }
    for (const detector of ['email', 'ipv4']) expect(search).toContain(`[masked:${detector}]`);
    expect(stored(app, APP_VALUES)).toEqual(Object.values(APP_VALUES));
  });

  test('dropped lines are not stored, in their route only', async () => {
    // WHEN
    const payments = await docs('payments-*');
    const search = await docs('search-*');
    const app = await docs('logs-*');
    // THEN
    expect(payments.filter((d) => JSON.stringify(d._source).includes(HEALTH_CHECK))).toEqual([]);
    expect(search.filter((d) => d._source.level === 'DEBUG')).toEqual([]);
    expect(app.filter((d) => JSON.stringify(d._source).includes(HEALTH_CHECK))).toHaveLength(RUNS);
    expect(app.filter((d) => d._source.level === 'DEBUG')).toHaveLength(RUNS);
  });

  test('each stack trace is stored as one document holding all its lines', async () => {
    // GIVEN
    const byGroup = new Map<string, Doc[]>([
      [TEAMS_GROUPS.payments, await docs('payments-*')],
      [TEAMS_GROUPS.search, await docs('search-*')],
    ]);
    expect(traces).toHaveLength(2 * RUNS);
    for (const trace of traces) {
      const stored = byGroup.get(trace.group) ?? [];
      // WHEN the documents holding the trace's own line are looked for
      const holding = stored.filter((d) => (d._source.message ?? '').includes(trace.marker));
      // THEN exactly one holds it, with every line of the trace, in order
      expect(holding).toHaveLength(1);
      expect(holding[0]._source.message).toContain(trace.lines.join('\n'));
    }
    // AND no continuation line is a document of its own: each trace's frame line is in as many documents as traces
    for (const [group, stored] of byGroup) {
      const ofGroup = traces.filter((t) => t.group === group);
      const frame = ofGroup[0].lines[1];
      expect(stored.filter((d) => (d._source.message ?? '').includes(frame))).toHaveLength(ofGroup.length);
      expect(stored.filter((d) => d._source.message === frame)).toEqual([]);
    }
  });

  test("the retention function deletes each family's indices past its retention, as its own principal only", async () => {
    // GIVEN indices of each family older and younger than its retention (payments 30 days, search 7, the default
    // route's 14), look-alikes and a foreign family, written through the stand-in
    const now = Date.now();
    const day = (stem: string, daysAgo: number): string =>
      indexNameFor(stem, 'OneDay', new Date(now - daysAgo * 86_400_000));
    const expired = [day('payments', 32), day('search', 9), day('logs', 16)].sort();
    const young = [day('payments', 29), day('search', 6), day('logs', 13)];
    const foreign = ['payments-restored', `${day('search', 9)}-restored`, day('billing', 40)];
    await seedIndices(admin(), [...expired, ...young, ...foreign], new Date(now).toISOString());
    const indices = async (): Promise<string[]> => {
      const listed = await admin().request({ method: 'GET', path: '/_cat/indices?format=json&h=index' });
      return (listed.body as { index: string }[]).map((r) => r.index);
    };
    const runIndices = (result.summary.documentsByIndex ?? []).map((i) => i.index);
    const env = retentionEnvironment({
      collectionUrl: collection().url,
      families: retentionFamiliesOf(config),
      indexRotation: config.delivery.indexRotation,
      metricsNamespace: config.name,
    });
    const due = new Date(now).toISOString();
    // WHEN it runs as a reader first (the policy lets a reader delete nothing), then as its own role
    const asReader = await runRetentionHandlerAs(READERS.payments, env, region(), due);
    const afterReader = await indices();
    const asItself = await runRetentionHandlerAs(TEAMS_RETENTION, env, region(), due);
    // THEN the reader's run deleted nothing and counted its failures; its own deleted exactly the expired ones
    expect(asReader.run.deleted).toEqual([]);
    expect(asReader.run.failed.length).toBeGreaterThan(0);
    expect(afterReader).toEqual(expect.arrayContaining(expired));
    expect([...asItself.run.deleted].sort()).toEqual(expired);
    expect(asItself.run.failed).toEqual([]);
    const left = await indices();
    expect(left).toEqual(expect.arrayContaining([...young, ...foreign, ...runIndices]));
    expect(left.filter((i) => expired.includes(i))).toEqual([]);
  });
});
