/**
 * `npm start -- --profile sandbox-serverless` end to end (issue 42): the local runner's own code (runLocal, as
 * main.ts calls it) with the cdk.json profile, on the conformance stand-in in front of a real node: the collection
 * provisioned through the stand-in, the shipped transform and the shipped indexer (signing for `aoss`, no routing)
 * under the event-source stand-in, moto, the summary counted without `_refresh`, and the reconcile step, which is
 * `kfek reconcile --service aoss` as a child process as on a domain. Every event written is searchable exactly once and
 * reconcile finds nothing missing; the stand-in refused nothing the run sent.
 *
 * On the same run, with its pipeline still running, `kfek reconcile` itself (the child process the step runs) is
 * tested on the collection: an event deleted through the stand-in is reported missing (exit 1); `--heal` sends it back
 * through the raw stream, the pipeline delivers it again through the indexer, and a second reconcile finds it once,
 * as exactly one document. The stand-in refuses a request signed for `es` and an `_mget` with `routing`, so a CLI that
 * regressed to either fails these tests (the last one shows the first refusal).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { sleep } from '../../core/clock';
import { LOCAL_CREDENTIALS } from '../../scripts/local/aws-clients';
import { loadConfig } from '../../scripts/local/config-spec';
import { collectionClient } from '../../scripts/local/local-collection';
import { parseStartOptions, type StartOptions } from '../../scripts/local/options';
import { localFolders } from '../../scripts/local/pipeline';
import { Processes } from '../../scripts/local/processes';
import {
  reconcileArgs,
  type ReconcileStepOptions,
  type ReconcileStepResult,
  runReconcileStep,
} from '../../scripts/local/reconcile-step';
import { type LocalRunResult, runLocal } from '../../scripts/local/run';
import { runKfek } from '../helpers/cli-run';
import { encodeEnvelope, makeEnvelope, makeKinesisEvent } from '../helpers/cloudwatch';
import { signedAs } from '../helpers/credentials-env';
import { OPENSEARCH_START_TIMEOUT_MILLIS } from '../helpers/opensearch';

const EVENTS = 400;
const PROFILE = 'sandbox-serverless';
/** How long the heal may wait for the pipeline to deliver the event again (moto runs one request at a time). */
const HEAL_TIMEOUT_MILLIS = 120_000;
/** The report's row of the run's log group when every event is found once: CloudWatch, OpenSearch and searchable. */
const ALL_SEARCHABLE = new RegExp(
  `/kfek/sandbox-serverless/app +\\d+ +\\d+ +${EVENTS} +${EVENTS} +${EVENTS} +0 `,
);
jest.setTimeout(OPENSEARCH_START_TIMEOUT_MILLIS + 240_000);

interface Hit {
  readonly _index: string;
  readonly _id: string;
  readonly _source: {
    readonly '@timestamp': string;
    readonly message: string;
    readonly cloudwatch: { id: string; logGroup: string; logStream: string; owner: string };
  };
}

/** Waits until `condition` holds, polling, for at most `timeoutMillis`; returns whether it held. */
async function until(condition: () => Promise<boolean>, timeoutMillis: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMillis;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await sleep(200);
  }
}

describe('npm start -- --profile sandbox-serverless', () => {
  const processes = new Processes();
  const workDir = mkdtempSync(path.join(tmpdir(), 'kfek-serverless-run-'));
  const lines: string[] = [];
  let result: LocalRunResult;
  let startedAt: number;
  /** The document the deletion test removed, which the heal test heals. */
  let deletedDocument: Hit | undefined;

  /** A client of the run's collection, signed for `aoss` with the run's key. */
  const collection = () => {
    const { collection: standin, pipeline } = processes;
    if (standin === undefined || pipeline === undefined) throw new Error('no run');
    return collectionClient(standin.url, pipeline.props.spec.region, 3);
  };
  const count = async (): Promise<number> =>
    ((await collection().request({ method: 'POST', path: '/logs-*/_count' })).body as { count: number })
      .count;
  const withId = async (id: string): Promise<Hit[]> =>
    (
      (
        await collection().request({
          method: 'POST',
          path: '/logs-*/_search',
          body: { size: 10, query: { ids: { values: [id] } } },
        })
      ).body as { hits: { hits: Hit[] } }
    ).hits.hits;

  /** Deletes one of the run's documents through the stand-in and waits (bounded) until a search no longer sees it. */
  const deleteOne = async (): Promise<Hit> => {
    const found = await collection().request({
      method: 'POST',
      path: '/logs-*/_search',
      body: { size: 1, query: { match_all: {} } },
    });
    const hit = (found.body as { hits: { hits: Hit[] } }).hits.hits[0];
    const deleted = await collection().request({ method: 'DELETE', path: `/${hit._index}/_doc/${hit._id}` });
    expect(deleted.status).toBe(200);
    // No _refresh on a collection: wait on the condition instead.
    expect(await until(async () => (await count()) === EVENTS - 1, 60_000)).toBe(true);
    return hit;
  };

  /** npm start's reconcile step's options over the run's window, against the collection. */
  const stepOptions = (extra: Partial<ReconcileStepOptions> = {}): ReconcileStepOptions => {
    const config = loadConfig(PROFILE);
    const { collection: standin, pipeline, moto } = processes;
    if (standin === undefined || pipeline === undefined || moto === undefined) throw new Error('no run');
    return {
      profile: config.profile,
      logGroups: config.sources.logGroups.map((g) => g.name),
      awsEndpoint: moto.endpoint,
      region: pipeline.props.spec.region,
      openSearchUrl: standin.url,
      rawStreamArn: pipeline.resources.rawStreamArn,
      deadLetterBucket: pipeline.resources.deadLetterBucket,
      workDir,
      // The run writes events stamped over the last 45 minutes (workload.ts).
      since: new Date(startedAt - 50 * 60_000),
      service: 'aoss',
      ...extra,
    };
  };
  /** `kfek reconcile` as npm start's step runs it: a child process. */
  const reconcileCli = (extra: Partial<ReconcileStepOptions> = {}): Promise<ReconcileStepResult> =>
    runReconcileStep(stepOptions(extra));

  beforeAll(async () => {
    // GIVEN the profile of cdk.json, a fresh node and moto, the stand-in in front of the node
    const options = parseStartOptions([
      '--profile',
      PROFILE,
      '--events',
      String(EVENTS),
      '--no-warm-up',
    ]) as StartOptions;
    startedAt = Date.now();
    // WHEN the runner runs as npm start runs it
    result = await runLocal(
      { ...options, workDir },
      processes,
      () => false,
      (line) => lines.push(line),
    );
  });

  afterAll(async () => {
    await processes.stopAll();
    rmSync(workDir, { recursive: true, force: true });
  });

  test('every event written is searchable exactly once, through the stand-in', () => {
    // THEN
    expect(result.summary.eventsWritten).toBe(EVENTS);
    expect(result.summary.eventsSearchable).toBe(EVENTS);
    expect(result.summary.documentsSearchable).toBe(EVENTS);
    expect(result.summary.delivery.documentsFailed).toBe(0);
    expect(lines.join('\n')).toContain('Serverless stand-in');
  });

  test('the documents carry no routing and the stand-in refused nothing the run sent', () => {
    // THEN (the run includes its reconcile step)
    expect(processes.collection?.refusals ?? ['no stand-in']).toEqual([]);
    expect((result.summary.documentsByIndex ?? []).map((i) => i.index)).toEqual([
      expect.stringMatching(/^logs-\d{4}-\d{2}-\d{2}$/),
    ]);
  });

  test('the reconcile step runs kfek reconcile --service aoss as a child process and finds nothing missing', () => {
    // THEN
    const report = lines.join('\n');
    expect(report).toMatch(/npx kfek reconcile --profile sandbox-serverless .*--local-dir .* --service aoss/);
    expect(report).toMatch(ALL_SEARCHABLE);
    expect(report).toContain('result: nothing missing');
    expect(result.ok).toBe(true);
  });

  test('kfek reconcile reports an event deleted from the collection missing, looked up by id without routing', async () => {
    // GIVEN one of the run's documents deleted through the stand-in
    const hit = await deleteOne();
    // WHEN
    const run = await reconcileCli();
    // THEN
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(1);
    expect(run.report).toContain('missing (1):');
    expect(run.report).toContain(`document ${hit._id}`);
    expect(run.report).toContain('result: 1 event(s) missing: --heal sends them through the raw stream');
    expect(processes.collection?.refusals).toEqual([]);
    deletedDocument = hit;
  });

  test('kfek reconcile --heal re-sends it, the pipeline delivers it again, and a second reconcile finds it once', async () => {
    // GIVEN the event deleted above, still missing
    const hit = deletedDocument;
    if (hit === undefined) throw new Error('the previous test deleted no document');
    // WHEN the heal sends it through the raw stream and waits until the indexer has written it again
    const healed = await reconcileCli({ heal: { timeoutInMillis: HEAL_TIMEOUT_MILLIS } });
    // THEN
    expect(healed.error).toBeUndefined();
    expect(healed.report).toContain('healed (1):');
    expect(healed.report).toContain(`document ${hit._id}`);
    expect(healed.report).toMatch(/heal: 1 sent through the raw stream, 1 searchable within /);
    expect(healed.report).toContain('result: nothing missing');
    expect(healed.code).toBe(0);
    // the collection holds every document again, the healed one once, under its id in its index of the day
    expect(await until(async () => (await count()) === EVENTS, 60_000)).toBe(true);
    expect(await withId(hit._id)).toEqual([expect.objectContaining({ _index: hit._index, _id: hit._id })]);
    // WHEN reconcile runs again
    const again = await reconcileCli();
    // THEN it finds every event once and nothing missing
    expect(again.error).toBeUndefined();
    expect(again.code).toBe(0);
    expect(again.report).toMatch(ALL_SEARCHABLE);
    expect(again.report).toContain('result: nothing missing');
    expect(processes.collection?.refusals).toEqual([]);
  });

  test('fails when kfek reconcile signs for es: the collection refuses it and the command says so', async () => {
    // GIVEN a domain profile with the same index naming, so the CLI (run as its entry runs it) signs for `es`
    const refusedBefore = processes.collection?.refusals.length ?? 0;
    const argv = [...reconcileArgs(stepOptions({ profile: 'sandbox-direct', service: 'es' })), '--sigv4'];
    // WHEN
    const run = await signedAs(LOCAL_CREDENTIALS, () => runKfek(argv));
    // THEN
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/HTTP 403/);
    const refused = processes.collection?.refusals.slice(refusedBefore) ?? [];
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.filter((r) => r.status !== 403 || !r.reason.includes('signed for "es"'))).toEqual([]);
  });

  test("kfek reconcile reads the run's folder on a collection: an event of a discarded batch is kept, not missing", async () => {
    // GIVEN a document deleted, and its event in a batch the event source gave up on (Lambda's on-failure record,
    // with the records, in the run's folder, as event-source-loop.ts writes it)
    const hit = await deleteOne();
    const { cloudwatch, message } = hit._source;
    const data = encodeEnvelope(
      makeEnvelope({ ...cloudwatch, subscriptionFilters: ['kfek-raw'] }, [
        { id: cloudwatch.id, timestamp: Date.parse(hit._source['@timestamp']), message },
      ]),
    );
    const { Records } = makeKinesisEvent([data], { streamArn: stepOptions().rawStreamArn });
    const folder = localFolders(workDir).onFailure;
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      path.join(folder, `${Records[0].eventID.replace(':', '-')}.json`),
      JSON.stringify({
        requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 3 },
        timestamp: new Date().toISOString(),
        payload: { Records },
      }),
    );
    // WHEN
    const run = await reconcileCli();
    // THEN
    expect(run.error).toBeUndefined();
    expect(run.report).toContain('kept (1):');
    expect(run.report).toMatch(
      new RegExp(`event ${cloudwatch.id} +discarded-batch .*${path.basename(folder)}`),
    );
    expect(run.report).toContain('result: nothing missing; 1 event(s) kept, not searchable');
    expect(run.code).toBe(0);
  });
});
