/**
 * The indexer function's environment (config `delivery.mode: direct`): a contract between whoever sets it (the
 * Pipeline stack at synth, the local runner of `npm start`) and whoever reads it (lambda/indexer, once per
 * container). The names and the one writer ({@link indexerEnvironment}) live here; the reader lives beside the
 * handler and applies the defaults named here.
 */
import type { IndexRotation } from './index-naming';

/** Environment variable names the indexer reads. */
export const IndexerEnvVar = {
  /** The OpenSearch endpoint, `https://host` (the domain's endpoint; no path). */
  Endpoint: 'OPENSEARCH_ENDPOINT',
  /** Bucket (name, not ARN) of documents OpenSearch refused for good, in Firehose's failed-documents layout. */
  FailedDocumentsBucket: 'FAILED_DOCUMENTS_BUCKET',
  /** Key prefix of failed documents (config `delivery.failedDocumentsPrefix`, ends with `/`). */
  FailedDocumentsPrefix: 'FAILED_DOCUMENTS_PREFIX',
  /** The default route's index prefix (config `delivery.indexPrefix`). */
  IndexPrefix: 'INDEX_PREFIX',
  /** The rotation of every index kfek writes (config `delivery.indexRotation`). */
  IndexRotation: 'INDEX_ROTATION',
  /** Primary shards per index (the index template's), which sets the routing's length. */
  IndexShards: 'INDEX_SHARDS',
  /** Most bytes of one `_bulk` body. */
  BulkBytes: 'BULK_MAX_BYTES',
  /** `_bulk` requests in flight at once per invocation. */
  Concurrency: 'BULK_CONCURRENCY',
  /** The profile's routes, exactly as the transform gets them (transform-env.ts `serializeRoutes`). */
  Routes: 'KFEK_ROUTES',
  /**
   * The SigV4 service the indexer signs `_bulk` for: `es` for a domain, `aoss` for an OpenSearch Serverless collection
   * (issue 42, docs/serverless.md). Unset means `es`.
   */
  SigningService: 'OPENSEARCH_SIGNING_SERVICE',
  /**
   * The default route's ingest pipeline on the domain (`<name>-<indexPrefix>-document-id`): the indexer reads the
   * route table the provisioner wrote into it (the profile's routes and the retired ones kfek keeps), so a document
   * marked with a retired route lands where the pipeline would put it (core/delivery/pipeline-routes.ts). The Pipeline
   * stack sets it on a domain (with `es:ESHttpGet` on that pipeline's path), and `npm start` does. Unset: the profile's
   * routes only (a Serverless collection has no pipeline, so it is never set there).
   */
  IngestPipeline: 'KFEK_INGEST_PIPELINE',
  /**
   * kfek's record index on a Serverless collection (`.<name>-registry`, core/opensearch/registry.ts): the indexer
   * reads the (route, stem) pairs the collection's provisioner recorded there, retired ones included
   * (core/opensearch/serverless-provision-routes.ts), as it reads a domain's pipeline. The Pipeline stack sets it on a
   * collection (with `aoss:ReadDocument` on that index in the data access policy), and `npm start` does. Never set
   * with {@link IngestPipeline}. Unset: the profile's routes only.
   */
  RouteRecord: 'KFEK_ROUTE_RECORD',
  /** Powertools' own variable: the CloudWatch namespace of the EMF metrics. */
  MetricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /** Powertools' own variable: the `service` of log lines and the `service` dimension of metrics. */
  ServiceName: 'POWERTOOLS_SERVICE_NAME',
} as const;
export type IndexerEnvVar = (typeof IndexerEnvVar)[keyof typeof IndexerEnvVar];

/** The SigV4 service names of OpenSearch: a domain's (`es`) and a Serverless collection's (`aoss`). */
export type OpenSearchSigningService = 'es' | 'aoss';
/** What {@link IndexerEnvVar.SigningService} means when unset: a domain. */
export const DEFAULT_SIGNING_SERVICE: OpenSearchSigningService = 'es';

/** The indexer's Powertools service name: the `service` dimension its alarms and dashboard widgets select on. */
export const INDEXER_SERVICE_NAME = 'indexer';

/** What the indexer needs. Optional settings left out stay unset, so the reader's default applies. */
export interface IndexerSettings {
  readonly endpoint: string;
  readonly failedDocumentsBucket: string;
  readonly failedDocumentsPrefix: string;
  readonly indexPrefix: string;
  readonly indexRotation: IndexRotation;
  readonly indexShards: number;
  /** @default - the reader's default */
  readonly bulkMaxBytes?: number;
  /** @default - the reader's default */
  readonly concurrency?: number;
  /** Serialized routes (transform-env.ts `serializeRoutes`). @default - none: every document is the default route's */
  readonly routes?: string;
  /** @default - the reader's default */
  readonly metricsNamespace?: string;
  /** @default - unset: {@link DEFAULT_SIGNING_SERVICE} (a domain) */
  readonly signingService?: OpenSearchSigningService;
  /** The ingest pipeline to read kept routes from ({@link IndexerEnvVar.IngestPipeline}). @default - the profile's routes only */
  readonly ingestPipeline?: string;
  /** The collection's record index to read kept routes from ({@link IndexerEnvVar.RouteRecord}). @default - the profile's routes only */
  readonly routeRecord?: string;
}

/** The environment variables of an indexer function: the one writer of {@link IndexerEnvVar}. Values may be tokens. */
export function indexerEnvironment(settings: IndexerSettings): Record<string, string> {
  const env: Record<string, string> = {
    [IndexerEnvVar.Endpoint]: settings.endpoint,
    [IndexerEnvVar.FailedDocumentsBucket]: settings.failedDocumentsBucket,
    [IndexerEnvVar.FailedDocumentsPrefix]: settings.failedDocumentsPrefix,
    [IndexerEnvVar.IndexPrefix]: settings.indexPrefix,
    [IndexerEnvVar.IndexRotation]: settings.indexRotation,
    [IndexerEnvVar.IndexShards]: String(settings.indexShards),
    [IndexerEnvVar.ServiceName]: INDEXER_SERVICE_NAME,
  };
  if (settings.bulkMaxBytes !== undefined) env[IndexerEnvVar.BulkBytes] = String(settings.bulkMaxBytes);
  if (settings.concurrency !== undefined) env[IndexerEnvVar.Concurrency] = String(settings.concurrency);
  if (settings.routes !== undefined && settings.routes !== '') env[IndexerEnvVar.Routes] = settings.routes;
  if (settings.metricsNamespace !== undefined)
    env[IndexerEnvVar.MetricsNamespace] = settings.metricsNamespace;
  if (settings.signingService !== undefined) env[IndexerEnvVar.SigningService] = settings.signingService;
  if (settings.ingestPipeline !== undefined) env[IndexerEnvVar.IngestPipeline] = settings.ingestPipeline;
  if (settings.routeRecord !== undefined) env[IndexerEnvVar.RouteRecord] = settings.routeRecord;
  return env;
}
