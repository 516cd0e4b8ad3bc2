/**
 * The steps of one local run (run.ts) around the measured write: before it the work folder, the servers,
 * provisioning, the warm-up and the pipeline ({@link setUpRun}); after it the kept node's note. Each prints its own
 * `==>` line and what it did.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { PipelineConfig } from '../../core/config';
import { createHttpClient, provisionOpenSearch } from '../../core/opensearch';
import type { MotoServer } from '../moto-server';
import type { RunningOpenSearch } from '../opensearch-node';
import { loadConfig, localSpecFromConfig, openSearchSpecFromConfig, REPO_ROOT } from './config-spec';
import type { StartOptions } from './options';
import { LocalPipeline } from './pipeline';
import { ensurePythonTools, KEPT_NODE_STATE, keptNodeStillRunning, type Processes } from './processes';
import { localSearchHttp, type SearchHttp } from './search-http';
import {
  COLLECTION_SIGNING_SERVICE,
  collectionSearchHttp,
  isServerlessProfile,
  provisionLocalCollection,
  startLocalCollection,
} from './local-collection';
import type { LocalPipelineSpec } from './spec';
import { warmUpDocumentsFor, warmUpSearch } from './warm-up';

/** Where a run prints: one line at a time, and a `==>` step line. */
export interface RunOutput {
  readonly out: (line: string) => void;
  readonly step: (text: string) => void;
}

/** The run's work folder, emptied: each run starts from empty local folders, as each starts a fresh moto and node. */
function freshWorkDir(options: StartOptions, out: (line: string) => void): string {
  const workDir = options.workDir ?? path.join(REPO_ROOT, '.kfek', 'local');
  const keptNode = keptNodeStillRunning();
  if (keptNode !== undefined) {
    // `--keep` records one node; a second `--keep` would overwrite the record of the first.
    const advice = options.keep ? " Stop it first, or this run's --keep record replaces its record." : '';
    out(
      `note: OpenSearch kept by an earlier run is still up at ${keptNode} ` +
        `(stop it: npx ts-node --transpile-only scripts/opensearch-node.ts stop).${advice}`,
    );
  }
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  return workDir;
}

/** Starts moto and OpenSearch, and says where they listen and how long they took. */
async function startServers(
  processes: Processes,
  now: () => number,
  { out, step }: RunOutput,
): Promise<{ readonly moto: MotoServer; readonly openSearch: RunningOpenSearch }> {
  step('starting moto and OpenSearch on 127.0.0.1 (the first run unpacks OpenSearch into .kfek/)');
  const started = now();
  const servers = await processes.startServers();
  out(
    `    moto ${servers.moto.endpoint}, OpenSearch ${servers.openSearch.version} ${servers.openSearch.url} ` +
      `(${((now() - started) / 1000).toFixed(1)} s)`,
  );
  return servers;
}

/** Provisions the node as the custom resource provisions a domain. */
async function provisionSearch(
  config: PipelineConfig,
  searchUrl: string,
  { out, step }: RunOutput,
): Promise<void> {
  step(
    'provisioning OpenSearch with core/opensearch (index template, retention policy where the plugin exists)',
  );
  await provisionOpenSearch(createHttpClient({ baseUrl: searchUrl }), openSearchSpecFromConfig(config), {
    log: (line) => out(`    ${line}`),
  });
}

/** Sends documents like the run's through the template and pipeline first, so the run does not measure a cold node. */
async function warmUp(
  options: StartOptions,
  search: SearchHttp,
  spec: LocalPipelineSpec,
  { out, step }: RunOutput,
): Promise<void> {
  const documents = warmUpDocumentsFor(options.events);
  step(
    `warming up OpenSearch: ${documents} transform documents through the template and pipeline ` +
      '(index deleted after)',
  );
  const warm = await warmUpSearch(search, spec.delivery.indexPattern, spec.logGroups[0].name, {
    documents,
  });
  out(
    `    ${warm.documents} documents in ${(warm.totalMillis / 1000).toFixed(1)} s; first bulk ` +
      `${warm.firstBulkMillis} ms, last ${warm.lastBulkMillis} ms` +
      (warm.rejected > 0 ? `; ${warm.rejected} REJECTED (the run's documents will likely be too)` : ''),
  );
}

/** What a run has set up when it starts writing events. */
export interface RunSetUp {
  readonly config: PipelineConfig;
  readonly spec: LocalPipelineSpec;
  readonly workDir: string;
  readonly moto: MotoServer;
  readonly openSearch: RunningOpenSearch;
  readonly search: SearchHttp;
  /** What the run's documents are searched at: the node, or the stand-in in front of it on a serverless profile. */
  readonly searchUrl: string;
  readonly pipeline: LocalPipeline;
  /** The run's one clock, handed to every loop (scripts/local reads time from what it is given). */
  readonly now: () => number;
}

/**
 * Everything before the first write: the profile, the Python tools, moto and OpenSearch, provisioning, the warm-up
 * and the pipeline with its resources in moto. `check` throws when the run was interrupted.
 */
export async function setUpRun(
  options: StartOptions,
  processes: Processes,
  check: () => void,
  output: RunOutput,
): Promise<RunSetUp> {
  const { out, step } = output;
  const config = options.config ?? loadConfig(options.profile);
  const spec = localSpecFromConfig(config);
  const workDir = freshWorkDir(options, out);
  step(
    `profile ${config.profile}: ${spec.logGroups.map((g) => g.name).join(', ')} -> ${spec.rawStream.name}`,
  );
  step('Python tools (.venv: moto)');
  ensurePythonTools();
  check();
  const now = Date.now;
  const { moto, openSearch } = await startServers(processes, now, output);
  check();
  const target = await openSearchTarget(config, spec, openSearch.url, processes, output, options);
  check();
  const { search } = target;
  if (options.warmUp && !target.serverless) {
    await warmUp(options, search, spec, output);
    check();
  }
  step('creating log groups, subscription filters, streams and the dead-letter bucket in moto');
  const pipeline = await LocalPipeline.start({
    spec,
    ...(target.serverless
      ? {
          delivery: 'direct',
          direct: {
            signingService: COLLECTION_SIGNING_SERVICE,
            ...(options.collectionAccess === undefined
              ? {}
              : { credentials: options.collectionAccess.indexer }),
          },
        }
      : { delivery: options.delivery }),
    awsEndpoint: moto.endpoint,
    search,
    workDir,
    now,
    log: (line) => out(`    ${line}`),
    trace: options.verbose
      ? (line) => out(`    ${new Date(now()).toISOString().slice(11, 23)} ${line}`)
      : undefined,
  });
  processes.pipeline = pipeline;
  out(`    raw ${pipeline.resources.rawStreamArn}\n    events ${pipeline.resources.eventsStreamArn}`);
  check();
  return { config, spec, workDir, moto, openSearch, search, searchUrl: search.url, pipeline, now };
}

/**
 * Where the run's documents go: the node itself, provisioned as a domain; or, on a serverless profile, the
 * Serverless stand-in in front of it (local-collection.ts), provisioned as a collection, read and written signed
 * for `aoss`. A collection takes kfek's own indexer only (docs/serverless.md), and runs no ingest pipeline, so there
 * is no warm-up of one.
 */
async function openSearchTarget(
  config: PipelineConfig,
  spec: LocalPipelineSpec,
  nodeUrl: string,
  processes: Processes,
  output: RunOutput,
  options: Pick<StartOptions, 'collectionAccess'>,
): Promise<{ readonly search: SearchHttp; readonly serverless: boolean }> {
  if (!isServerlessProfile(config)) {
    await provisionSearch(config, nodeUrl, output);
    return { search: localSearchHttp(nodeUrl), serverless: false };
  }
  const { out, step } = output;
  step(
    'starting the OpenSearch Serverless stand-in in front of the node (scripts/serverless: signed for aoss, ' +
      "Serverless's refusals) and provisioning it as a collection (core/opensearch/serverless-provision.ts)",
  );
  const collection = await startLocalCollection(nodeUrl, spec.region, options.collectionAccess);
  processes.collection = collection;
  out(`    collection ${collection.url} (node ${nodeUrl}); delivery: kfek's indexer signing for aoss`);
  if (options.collectionAccess !== undefined) {
    out(`    data access policy enforced: ${options.collectionAccess.accessPolicy.length} statements`);
  }
  await provisionLocalCollection(
    config,
    collection.url,
    spec.region,
    (line) => out(`    ${line}`),
    options.collectionAccess?.provisioner,
  );
  return { search: collectionSearchHttp(collection.url, spec.region), serverless: true };
}

/** `--keep`: the node stays up after the run (recorded for the next run and `opensearch-node.ts stop`). */
export function keepNodeUp(
  openSearch: RunningOpenSearch,
  spec: LocalPipelineSpec,
  out: (line: string) => void,
): void {
  const searchUrl = openSearch.url;
  writeFileSync(
    KEPT_NODE_STATE,
    JSON.stringify({ url: searchUrl, pid: openSearch.pid, homeDir: openSearch.homeDir }),
  );
  openSearch.detach();
  const pattern = spec.delivery.searchPattern;
  out(
    [
      `OpenSearch stays up at ${searchUrl} (pid ${openSearch.pid}). Try:`,
      `  curl -s '${searchUrl}/_cat/indices/${pattern}?v'`,
      `  curl -s '${searchUrl}/${pattern}/_search?q=level:ERROR&size=3&pretty'`,
      `  curl -s -H 'content-type: application/json' '${searchUrl}/${pattern}/_search?pretty' -d ` +
        `'{"size":0,"aggs":{"by_group":{"terms":{"field":"cloudwatch.logGroup"}}}}'`,
      `  curl -s '${searchUrl}/${pattern}/_search?pretty&q=lambda.durationMs:>100'`,
      'Stop it with: npx ts-node --transpile-only scripts/opensearch-node.ts stop',
    ].join('\n'),
  );
}
