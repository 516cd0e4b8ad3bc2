/**
 * The indexer's settings, read once per container from the environment core/contracts/indexer-env.ts names (the
 * Pipeline stack and the local runner write it with `indexerEnvironment`), with the defaults applied here.
 */
import {
  DEFAULT_SIGNING_SERVICE,
  IndexerEnvVar,
  INDEXER_SERVICE_NAME,
  type OpenSearchSigningService,
} from '../../core/contracts/indexer-env';
import type { IndexRotation } from '../../core/contracts/index-naming';
import { parseRoutes } from '../../core/contracts/transform-env';
import type { DeliveryTarget } from '../../core/delivery/document-plan';
import { nestedStems } from '../../core/opensearch/families';
import { profileRouteTable } from '../../core/opensearch/route-table';
import { IndexerEnvError } from './errors';

/**
 * Default most bytes of one `_bulk` body: 1 MiB (about 1,600 of kfek's documents), the size the Firehose stand-in
 * measured best on the local 2-core node (scripts/local/delivery-loop.ts `bulkSizeInBytes`: 5 MiB bodies outlasted
 * the request timeout on a loaded machine). `npm run bench:bulk-bytes` (the direct path's own curve, 64 KiB to 4 MiB,
 * planned documents, `pipeline=_none`) ran twice on 2026-11-29 at load average 15-27: the medians put 256 KiB ahead
 * by docs/s (933 and 1,622 against 761 and 1,243 for 1 MiB) and the node's CPU per document within noise (256-335
 * core-us across all sizes), while single rounds of one size varied threefold. No size was distinguishable from
 * 1 MiB, so the default stays; docs/delivery.md, "Bulk size", has both runs.
 */
export const DEFAULT_BULK_MAX_BYTES = 1024 * 1024;

/**
 * Default `_bulk` requests in flight per invocation: with one invocation per shard (the event source mapping's
 * parallelization factor 1), two keep a data node's write threads busy while the next body is built.
 */
export const DEFAULT_BULK_CONCURRENCY = 2;

/** Default CloudWatch namespace, the transform's. */
export const DEFAULT_METRICS_NAMESPACE = 'kfek';

export interface IndexerEnv {
  /** `https://host` (no path). */
  readonly endpoint: string;
  readonly failedDocumentsBucket: string;
  /** Ends with `/` (or is empty). */
  readonly failedDocumentsPrefix: string;
  readonly target: DeliveryTarget;
  readonly bulkMaxBytes: number;
  readonly concurrency: number;
  readonly metricsNamespace: string;
  readonly serviceName: string;
  /** The SigV4 service: `es` (a domain) or `aoss` (a Serverless collection). */
  readonly signingService: OpenSearchSigningService;
  /** Whether bulk actions carry the routing: not to a collection, which places documents itself. */
  readonly routing: boolean;
  /** The ingest pipeline whose route table the indexer applies (routes.ts); undefined: the profile's routes. */
  readonly ingestPipeline: string | undefined;
  /** The collection's record index whose route pairs the indexer applies (routes.ts); undefined: the profile's. */
  readonly routeRecord: string | undefined;
  /** Region of the domain, for SigV4 (Lambda's own `AWS_REGION`). */
  readonly region: string;
  /** True when an endpoint override is set (moto serves S3 path-style only). */
  readonly s3ForcePathStyle: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

const SIGNING_SERVICES: readonly OpenSearchSigningService[] = ['es', 'aoss'];

const ROTATIONS: readonly IndexRotation[] = ['NoRotation', 'OneHour', 'OneDay', 'OneWeek', 'OneMonth'];

function optional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function required(env: Env, name: string, expected: string): string {
  const value = optional(env, name);
  if (value === undefined) throw new IndexerEnvError(name, undefined, expected);
  return value;
}

function positiveInteger(env: Env, name: string, fallback: number): number {
  const text = optional(env, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new IndexerEnvError(name, text, 'a positive integer');
  return value;
}

/** Reads and checks the indexer's environment. @throws IndexerEnvError naming the variable and the fix */
export function readIndexerEnv(env: Env = process.env): IndexerEnv {
  const endpoint = required(env, IndexerEnvVar.Endpoint, 'the OpenSearch endpoint, https://host');
  if (!/^https?:\/\/[^/]+\/?$/.test(endpoint)) {
    throw new IndexerEnvError(IndexerEnvVar.Endpoint, endpoint, 'http(s)://host[:port] with no path');
  }
  const rotation = required(env, IndexerEnvVar.IndexRotation, ROTATIONS.join(', '));
  if (!(ROTATIONS as readonly string[]).includes(rotation)) {
    throw new IndexerEnvError(IndexerEnvVar.IndexRotation, rotation, `one of ${ROTATIONS.join(', ')}`);
  }
  const prefix = env[IndexerEnvVar.FailedDocumentsPrefix]?.trim() ?? '';
  if (prefix !== '' && !prefix.endsWith('/')) {
    throw new IndexerEnvError(IndexerEnvVar.FailedDocumentsPrefix, prefix, 'a key prefix ending with "/"');
  }
  const routes = parseRoutes(optional(env, IndexerEnvVar.Routes)).map((r) => ({
    route: r.name,
    indexStem: r.indexStem ?? r.name,
  }));
  const indexPrefix = required(env, IndexerEnvVar.IndexPrefix, 'the default route index prefix');
  const signingService = optional(env, IndexerEnvVar.SigningService) ?? DEFAULT_SIGNING_SERVICE;
  if (!(SIGNING_SERVICES as readonly string[]).includes(signingService)) {
    throw new IndexerEnvError(
      IndexerEnvVar.SigningService,
      signingService,
      `one of ${SIGNING_SERVICES.join(', ')} (es for a domain, aoss for a Serverless collection)`,
    );
  }
  return {
    endpoint: endpoint.replace(/\/$/, ''),
    failedDocumentsBucket: required(
      env,
      IndexerEnvVar.FailedDocumentsBucket,
      'the failed-documents bucket name',
    ),
    failedDocumentsPrefix: prefix,
    target: {
      prefix: indexPrefix,
      rotation: rotation as IndexRotation,
      shards: positiveInteger(env, IndexerEnvVar.IndexShards, 1),
      table: profileRouteTable(routes),
      nested: nestedStems(
        indexPrefix,
        routes.map((r) => r.indexStem),
      ),
    },
    bulkMaxBytes: positiveInteger(env, IndexerEnvVar.BulkBytes, DEFAULT_BULK_MAX_BYTES),
    concurrency: positiveInteger(env, IndexerEnvVar.Concurrency, DEFAULT_BULK_CONCURRENCY),
    metricsNamespace: optional(env, IndexerEnvVar.MetricsNamespace) ?? DEFAULT_METRICS_NAMESPACE,
    serviceName: optional(env, IndexerEnvVar.ServiceName) ?? INDEXER_SERVICE_NAME,
    signingService: signingService as OpenSearchSigningService,
    routing: signingService !== 'aoss',
    ingestPipeline: optional(env, IndexerEnvVar.IngestPipeline),
    routeRecord: optional(env, IndexerEnvVar.RouteRecord),
    region: optional(env, 'AWS_REGION') ?? optional(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1',
    s3ForcePathStyle:
      optional(env, 'AWS_ENDPOINT_URL_S3') !== undefined || optional(env, 'AWS_ENDPOINT_URL') !== undefined,
  };
}
