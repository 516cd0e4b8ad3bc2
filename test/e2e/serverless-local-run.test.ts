/**
 * `npm start -- --profile sandbox-serverless` end to end (issue 42): the local runner's own code (runLocal, as
 * main.ts calls it) with the cdk.json profile, on the conformance stand-in in front of a real node: the collection
 * provisioned through the stand-in, the shipped transform and the shipped indexer (signing for `aoss`, no routing)
 * under the event-source stand-in, moto, the summary counted without `_refresh`, and the reconcile step on the
 * collection. Every event written is searchable exactly once and reconcile finds nothing missing; the stand-in
 * refused nothing the run sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { sleep } from '../../core/clock';
import { runCollectionReconcile } from '../../scripts/local/collection-reconcile';
import { loadConfig } from '../../scripts/local/config-spec';
import { collectionClient } from '../../scripts/local/local-collection';
import { parseStartOptions, type StartOptions } from '../../scripts/local/options';
import { Processes } from '../../scripts/local/processes';
import { type LocalRunResult, runLocal } from '../../scripts/local/run';
import { OPENSEARCH_START_TIMEOUT_MILLIS } from '../helpers/opensearch';

const EVENTS = 400;
jest.setTimeout(OPENSEARCH_START_TIMEOUT_MILLIS + 240_000);

describe('npm start -- --profile sandbox-serverless', () => {
  const processes = new Processes();
  const workDir = mkdtempSync(path.join(tmpdir(), 'kfek-serverless-run-'));
  const lines: string[] = [];
  let result: LocalRunResult;
  let startedAt: number;

  beforeAll(async () => {
    // GIVEN the profile of cdk.json, a fresh node and moto, the stand-in in front of the node
    const options = parseStartOptions([
      '--profile',
      'sandbox-serverless',
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
    // THEN
    expect(processes.collection?.refusals ?? ['no stand-in']).toEqual([]);
    expect((result.summary.documentsByIndex ?? []).map((i) => i.index)).toEqual([
      expect.stringMatching(/^logs-\d{4}-\d{2}-\d{2}$/),
    ]);
  });

  test('the reconcile step on the collection finds nothing missing', () => {
    // THEN
    const report = lines.join('\n');
    expect(report).toContain('reconcile on the collection');
    expect(report).toMatch(new RegExp(`total: searchable ${EVENTS}; missing 0`));
    expect(result.ok).toBe(true);
  });

  test('an event deleted from the collection is reported missing, looked up by id without routing', async () => {
    // GIVEN one of the run's documents deleted through the stand-in
    const config = loadConfig('sandbox-serverless');
    const { collection, pipeline, moto } = processes;
    if (collection === undefined || pipeline === undefined || moto === undefined) throw new Error('no run');
    const region = pipeline.props.spec.region;
    const client = collectionClient(collection.url, region, 3);
    const found = await client.request({
      method: 'POST',
      path: '/logs-*/_search',
      body: { size: 1, query: { match_all: {} } },
    });
    const hit = (found.body as { hits: { hits: { _index: string; _id: string }[] } }).hits.hits[0];
    const count = async (): Promise<number> =>
      ((await client.request({ method: 'POST', path: '/logs-*/_count' })).body as { count: number }).count;
    const before = await count();
    const deleted = await client.request({ method: 'DELETE', path: `/${hit._index}/_doc/${hit._id}` });
    expect(deleted.status).toBe(200);
    // No _refresh on a collection: wait (bounded) until a search no longer sees it.
    const deadline = Date.now() + 60_000;
    while ((await count()) !== before - 1 && Date.now() < deadline) await sleep(200);
    // WHEN
    const run = await runCollectionReconcile(
      config,
      {
        profile: config.profile,
        logGroups: config.sources.logGroups.map((g) => g.name),
        awsEndpoint: moto.endpoint,
        region,
        openSearchUrl: collection.url,
        rawStreamArn: pipeline.resources.rawStreamArn,
        deadLetterBucket: pipeline.resources.deadLetterBucket,
        workDir,
        // The run writes events stamped over the last 45 minutes (workload.ts).
        since: new Date(startedAt - 50 * 60_000),
      },
      Date.now,
    );
    // THEN
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(1);
    expect(run.report).toContain(`total: searchable ${EVENTS - 1}, missing 1; missing 1`);
    expect(collection.refusals).toEqual([]);
  });
});
