/**
 * The servers and pipeline the end-to-end tests share: moto and a real OpenSearch node (started in parallel), the
 * index template provisioned from the config, the fault-injecting proxy in front of moto for the transform's
 * PutRecords, and the local pipeline of `npm start` (scripts/local) over them. `stop()` ends every one of them, also
 * when an earlier step failed, so no process outlives a test file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { PipelineConfig } from '../../core/config';
import { createHttpClient, provisionOpenSearch } from '../../core/opensearch';
import { localSpecFromConfig, openSearchSpecFromConfig } from '../../scripts/local/config-spec';
import { LocalPipeline } from '../../scripts/local/pipeline';
import type { LocalPipelineProps } from '../../scripts/local/pipeline-props';
import { localSearchHttp, type SearchHttp } from '../../scripts/local/search-http';
import type { LocalPipelineSpec } from '../../scripts/local/spec';
import { startMoto, type MotoServer } from '../../scripts/moto-server';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { createIndexAhead, startOpenSearch, TEST_NODE, type RunningOpenSearch } from './opensearch';

export interface LocalStack {
  readonly moto: MotoServer;
  readonly node: RunningOpenSearch;
  readonly proxy: FaultProxy;
  readonly pipeline: LocalPipeline;
  readonly search: SearchHttp;
  readonly spec: LocalPipelineSpec;
  /** The pipeline's folders (failed documents, on-failure records) live here. */
  readonly workDir: string;
}

export interface LocalStackOptions {
  /** Prefix of the temporary work folder. */
  readonly workDirPrefix: string;
  /** @default 500 */
  readonly deliveryBufferIntervalInMillis?: number;
  /**
   * Run moto one request at a time, as `npm start` does (`startMoto`'s `serialized`), and let the transform write to
   * it directly: for tests that write to the raw stream while the pipeline reads it, where threaded moto can give
   * two records one sequence number. The fault proxy is still started, but nothing goes through it.
   * @default false
   */
  readonly serializedMoto?: boolean;
  /** The Firehose stand-in, or kfek's own indexer (LocalPipelineProps.delivery). @default 'firehose' */
  readonly delivery?: LocalPipelineProps['delivery'];
  /** Puts a fault in front of the real transform handler (LocalPipelineProps.wrapHandler). @default - none */
  readonly wrapHandler?: LocalPipelineProps['wrapHandler'];
}

/** Holds what has started so far, so `stop()` can end it whatever failed. */
export class LocalStackRunner {
  private moto?: MotoServer;
  private node?: RunningOpenSearch;
  private proxy?: FaultProxy;
  private pipeline?: LocalPipeline;
  private workDir?: string;
  private started?: LocalStack;

  /** Starts everything for `config` (call from beforeAll with OPENSEARCH_START_TIMEOUT_MILLIS). */
  async start(config: PipelineConfig, options: LocalStackOptions): Promise<LocalStack> {
    const workDir = mkdtempSync(path.join(tmpdir(), options.workDirPrefix));
    this.workDir = workDir;
    const spec = localSpecFromConfig(config);
    // Both servers start in parallel: OpenSearch takes 15-30 s, moto 2-3 s.
    const [startedMoto, startedNode] = await Promise.allSettled([
      startMoto({ serialized: options.serializedMoto === true }),
      startOpenSearch(TEST_NODE),
    ]);
    if (startedMoto.status === 'fulfilled') this.moto = startedMoto.value;
    if (startedNode.status === 'fulfilled') this.node = startedNode.value;
    if (startedMoto.status === 'rejected') throw startedMoto.reason;
    if (startedNode.status === 'rejected') throw startedNode.reason;
    const moto = startedMoto.value;
    const node = startedNode.value;
    await provisionOpenSearch(createHttpClient({ baseUrl: node.url }), openSearchSpecFromConfig(config));
    await createIndexAhead(node.url, spec.delivery.indexFor(new Date()));
    const proxy = await startFaultProxy(moto.endpoint);
    this.proxy = proxy;
    const search = localSearchHttp(node.url);
    const pipeline = await LocalPipeline.start({
      spec,
      awsEndpoint: moto.endpoint,
      ...(options.serializedMoto === true ? {} : { transformKinesisEndpoint: proxy.url }),
      search,
      workDir,
      deliveryBufferIntervalInMillis: options.deliveryBufferIntervalInMillis ?? 500,
      transformLogLevel: 'CRITICAL',
      ...(options.delivery === undefined ? {} : { delivery: options.delivery }),
      ...(options.wrapHandler !== undefined ? { wrapHandler: options.wrapHandler } : {}),
    });
    this.pipeline = pipeline;
    this.started = { moto, node, proxy, pipeline, search, spec, workDir };
    return this.started;
  }

  /** The running stack; throws when beforeAll did not get that far. */
  get(): LocalStack {
    if (this.started === undefined) throw new Error('the local stack did not start (see beforeAll)');
    return this.started;
  }

  /** Stops every step that started (call from afterAll, 60 s timeout); rethrows the first failure. */
  async stop(): Promise<void> {
    const results = await Promise.allSettled([this.pipeline?.stop()]);
    results.push(...(await Promise.allSettled([this.proxy?.close(), this.moto?.stop(), this.node?.stop()])));
    if (this.workDir !== undefined) rmSync(this.workDir, { recursive: true, force: true });
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }
}
