/**
 * Direct delivery on one machine (`npm start -- --delivery direct`, issue 41): the SHIPPED indexer handler
 * (lambda/indexer/handler.ts) under the event-source mapping's stand-in (event-source-loop.ts), reading moto's
 * events stream and writing to the node, in place of the Firehose stand-in (delivery-loop.ts). Its refused
 * documents go to moto's S3, in Firehose's layout, as in AWS. It answers what the pipeline asks of a delivery
 * (settled, failed, counters) with the same {@link DeliveryStats}, from the handler's own results.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import * as path from 'node:path';
import { indexerEnvironment, type OpenSearchSigningService } from '../../core/contracts/indexer-env';
import { serializeRoutes } from '../../core/contracts/transform-env';
import { localAwsEnvironment } from './aws-clients';
import type { DeliveryStats } from './delivery-loop';
import { LocalRunError } from './errors';
import { EventSourceLoop, type KinesisBatchHandler } from './event-source-loop';
import type { LocalPipelineSpec } from './spec';

/** What the shipped indexer reports per batch, read through the handler module the runner loads (never deliver.ts). */
type DeliveryResult = Parameters<
  Parameters<typeof import('../../lambda/indexer/handler').observeDeliveries>[0]
>[0];

const INDEXER_MODULE = path.join(__dirname, '..', '..', 'lambda', 'indexer', 'handler');

/** Key prefix of the refused documents in the local bucket when the spec names none (the config's default). */
export const LOCAL_FAILED_DOCUMENTS_PREFIX = 'failed-documents/';

/**
 * Where the indexer keeps refused documents in the local bucket: the profile's `delivery.failedDocumentsPrefix`, as in
 * AWS, so `kfek reconcile` and `kfek replay` (given the bucket) find them under the profile's prefix.
 */
export function localFailedDocumentsPrefix(spec: LocalPipelineSpec): string {
  return spec.delivery.failedDocumentsPrefix ?? LOCAL_FAILED_DOCUMENTS_PREFIX;
}

export interface DirectDeliveryProps {
  readonly spec: LocalPipelineSpec;
  readonly kinesis: KinesisClient;
  readonly eventsStreamArn: string;
  readonly awsEndpoint: string;
  /** The node's URL (`http://127.0.0.1:<port>`). */
  readonly searchUrl: string;
  /** The bucket of refused documents (the dead-letter bucket locally; the backup bucket in AWS). */
  readonly failedDocumentsBucket: string;
  readonly onFailureDir: string;
  /** Records per invocation (the mapping's `BatchSize`). @default 500 */
  readonly batchSize?: number;
  /** `_bulk` requests in flight per invocation. @default - the handler's default */
  readonly concurrency?: number;
  /** Most bytes of one `_bulk` body. @default - the handler's default */
  readonly bulkMaxBytes?: number;
  /** The SigV4 service the indexer signs for: `aoss` on a Serverless collection. @default - unset: `es` */
  readonly signingService?: OpenSearchSigningService;
  /**
   * The key the indexer signs with, as its function role's credentials in AWS: a test of a collection's data access
   * policy gives the indexer its own principal (test/e2e/serverless-teams.test.ts).
   * @default - the local key (aws-clients.ts)
   */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Powertools log level inside the indexer. @default 'WARN' */
  readonly logLevel?: string;
  readonly log?: (line: string) => void;
  readonly trace?: (line: string) => void;
  readonly now?: () => number;
}

/** The indexer function's environment: the Pipeline stack's (`indexerEnvironment`) plus what Lambda sets. */
export function localIndexerEnv(props: DirectDeliveryProps): Record<string, string> {
  const { spec } = props;
  if (spec.delivery.indexPrefix === undefined) {
    throw new LocalRunError(
      'direct delivery needs the spec\u2019s delivery.indexPrefix (localSpecFromConfig sets it)',
    );
  }
  return {
    ...localAwsEnvironment(spec.region, props.awsEndpoint),
    ...(props.credentials === undefined
      ? {}
      : {
          AWS_ACCESS_KEY_ID: props.credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: props.credentials.secretAccessKey,
        }),
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: props.logLevel ?? 'WARN',
    ...indexerEnvironment({
      endpoint: props.searchUrl,
      failedDocumentsBucket: props.failedDocumentsBucket,
      failedDocumentsPrefix: localFailedDocumentsPrefix(spec),
      indexPrefix: spec.delivery.indexPrefix,
      indexRotation: spec.delivery.indexRotation ?? 'OneDay',
      indexShards: spec.delivery.indexShards ?? 1,
      ...(spec.delivery.ingestPipeline === undefined ? {} : { ingestPipeline: spec.delivery.ingestPipeline }),
      ...(spec.delivery.routeRecord === undefined ? {} : { routeRecord: spec.delivery.routeRecord }),
      ...(spec.routes === undefined || spec.routes.length === 0
        ? {}
        : { routes: serializeRoutes(spec.routes) }),
      ...(props.concurrency === undefined ? {} : { concurrency: props.concurrency }),
      ...(props.bulkMaxBytes === undefined ? {} : { bulkMaxBytes: props.bulkMaxBytes }),
      ...(props.signingService === undefined ? {} : { signingService: props.signingService }),
    }),
  };
}

/**
 * The shipped indexer, loaded in this process with its environment (it reads it at module scope, and its SDK
 * clients read credentials and endpoints when they first call, so the variables stay set, as the transform's do:
 * transform-runtime.ts). The transform is loaded first and has read its own service name by then.
 */
async function loadIndexer(
  env: Readonly<Record<string, string>>,
): Promise<{ handler: KinesisBatchHandler; observe: (listener: (r: DeliveryResult) => void) => void }> {
  Object.assign(process.env, env);
  const mod = (await import(INDEXER_MODULE)) as typeof import('../../lambda/indexer/handler');
  return { handler: mod.handler, observe: mod.observeDeliveries };
}

/** The indexer under the event-source mapping's stand-in, with the Firehose stand-in's counters. */
export class DirectDelivery {
  private readonly stats = {
    userRecords: 0,
    documentsIndexed: 0,
    documentsOverwritten: 0,
    documentsFailed: 0,
    documentRetries: 0,
    bulkRequests: 0,
  };
  private readonly indices = new Set<string>();
  private firstInvocationAt: number | undefined;
  private lastInvocationEndedAt = 0;

  private constructor(private readonly loop: EventSourceLoop) {}

  static async start(props: DirectDeliveryProps): Promise<DirectDelivery> {
    const now = props.now ?? Date.now;
    const indexer = await loadIndexer(localIndexerEnv(props));
    // The handler counts into the delivery built below, around the loop that calls it.
    const ref: { delivery?: DirectDelivery } = {};
    indexer.observe((result) => ref.delivery?.count(result));
    const handler: KinesisBatchHandler = async (event, context) => {
      if (ref.delivery !== undefined) ref.delivery.firstInvocationAt ??= now();
      try {
        return await indexer.handler(event, context);
      } finally {
        if (ref.delivery !== undefined) ref.delivery.lastInvocationEndedAt = now();
      }
    };
    const loop = new EventSourceLoop({
      kinesis: props.kinesis,
      streamArn: props.eventsStreamArn,
      handler,
      batchSize: props.batchSize ?? 500,
      retryAttempts: props.spec.eventSource.retryAttempts,
      timeoutInMillis: props.spec.eventSource.timeoutInMillis,
      memorySizeInMb: props.spec.eventSource.memorySizeInMb,
      functionName: `${props.spec.eventSource.functionName}-indexer`,
      region: props.spec.region,
      accountId: props.spec.accountId,
      onFailureDir: props.onFailureDir,
      log: props.log,
      trace: props.trace,
      now,
    });
    ref.delivery = new DirectDelivery(loop);
    await loop.start();
    return ref.delivery;
  }

  private count(result: DeliveryResult): void {
    this.stats.userRecords += result.counts.DocumentsIn;
    this.stats.documentsIndexed += result.counts.IndexedDocuments;
    this.stats.documentsOverwritten += result.overwritten;
    this.stats.documentsFailed += result.counts.RefusedDocuments;
    this.stats.documentRetries += result.counts.RetriedRequests;
    this.stats.bulkRequests += result.bulkRequests;
    for (const index of result.indices) this.indices.add(index);
  }

  failure(): Error | undefined {
    return this.loop.failure();
  }

  caughtUpSince(): number | undefined {
    return this.loop.caughtUpSince();
  }

  snapshot(): DeliveryStats {
    const source = this.loop.snapshot();
    return {
      ...this.stats,
      recordsRead: source.recordsDelivered,
      readErrors: source.readErrors,
      indices: [...this.indices].sort(),
      indexingSpanInMillis:
        this.firstInvocationAt === undefined ? 0 : this.lastInvocationEndedAt - this.firstInvocationAt,
    };
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }
}
