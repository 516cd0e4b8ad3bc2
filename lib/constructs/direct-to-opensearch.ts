/**
 * Delivery mode `direct` (docs/delivery.md): kfek's indexer function reads the events stream through a Kinesis
 * event source mapping and sends `_bulk` requests that carry each document's `_index`, `_id` and `routing`, so no
 * Firehose delivery stream and no ingest pipeline run on this path.
 */
import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { DirectDeliveryConfig, IndexRotation } from '../../core/config';
import { indexerEnvironment } from '../../core/contracts/indexer-env';
import { justifyWildcardResources } from '../nag';
import { grantPrefixWrite } from './prefix-write';
import { TransformFunction, onFailureDestinationJustification } from './transform-function';

/** The shipped indexer handler (lambda/indexer, export `handler`), relative to the repository root. */
export const INDEXER_ENTRY = 'lambda/indexer/handler.ts';

/** An OpenSearch Serverless collection as the indexer's destination (the Search stack's `collection`). */
export interface CollectionTarget {
  /** `https://<id>.<region>.aoss.amazonaws.com`. */
  readonly endpoint: string;
  readonly arn: string;
  /**
   * The role the collection's data access policy lets write kfek's indices (it lives beside the policy, in the
   * Search stack). The indexer runs as it, imported by ARN, so the function's grants become a policy of the
   * indexer's stack and references still run one way only, to the Search stack.
   */
  readonly writerRole: iam.IRole;
  /**
   * The scheduled reconcile function's role, named by the collection's data access policy (config
   * `reconcile.enabled`). @default - no reconcile function
   */
  readonly reconcileRole?: iam.IRole;
}

export interface DirectToOpenSearchProps {
  /** The stream of documents the indexer reads (the events stream). */
  readonly eventsStream: kinesis.IStream;
  /** The domain the indexer writes (`openSearch.kind: domain`); exactly one of this and {@link collection}. */
  readonly domain?: opensearch.IDomain;
  /** The Serverless collection the indexer writes instead (`openSearch.kind: serverless`, docs/serverless.md). */
  readonly collection?: CollectionTarget;
  /**
   * The failed-records bucket: documents OpenSearch refuses for good go under {@link failedDocumentsPrefix} (the
   * layout Firehose uses), and the event source mapping writes a batch it gives up on under `aws/lambda/`.
   */
  readonly bucket: s3.IBucket;
  /** Key prefix of failed documents (config `delivery.failedDocumentsPrefix`, ends with `/`). */
  readonly failedDocumentsPrefix: string;
  /** The default route's index prefix (config `delivery.indexPrefix`). */
  readonly indexPrefix: string;
  readonly indexRotation: IndexRotation;
  /** Primary shards per index (config `openSearch.indexTemplate.shards`): sets the routing's length. */
  readonly indexShards: number;
  /** The function and its event source mapping (config `delivery.direct`). */
  readonly settings: DirectDeliveryConfig;
  /**
   * Routes serialized as the transform gets them (core/contracts/transform-env.ts `serializeRoutes`).
   * @default - none: every document is the default route's
   */
  readonly routes?: string;
  /**
   * The domain's ingest pipeline whose route table the indexer applies (`KFEK_INGEST_PIPELINE`; core/opensearch
   * route-spec.ts `ingestPipelineName`): the profile's routes and the retired ones the provisioner keeps, so a
   * document marked with a retired route lands in its team's index as on the Firehose path. A domain only: a
   * collection has no ingest pipeline (docs/serverless.md).
   * @default - none: the profile's routes only (a retired route's document goes to the default index)
   */
  readonly ingestPipeline?: string;
  /**
   * A collection's record index whose route pairs the indexer applies (`KFEK_ROUTE_RECORD`; core/opensearch
   * route-record.ts): the profile's routes and the retired ones the collection's provisioner keeps. A collection
   * only; the data access policy lets the writer role read that index (core/opensearch/serverless-access.ts).
   * @default - none: the profile's routes only (a retired route's document goes to the default index)
   */
  readonly routeRecord?: string;
  /** CloudWatch namespace of the indexer's EMF metrics. @default - the indexer's default */
  readonly metricsNamespace?: string;
  /** @default - a name CloudFormation generates */
  readonly functionName?: string;
  /** @default - a name CloudFormation generates */
  readonly logGroupName?: string;
  /** The function role's name (fixed, so the writer mapping can name it before it exists). @default - generated */
  readonly roleName?: string;
  /** Retention of the function's log group. @default logs.RetentionDays.TWO_WEEKS */
  readonly logRetention?: logs.RetentionDays;
}

/**
 * The indexer: a Node 24 arm64 function bundled by the local esbuild like the transform (the same construct), its
 * log group, and a Kinesis event source mapping on the events stream with partial batch responses, bisection,
 * bounded retries and record age, and the S3 on-failure destination that keeps a discarded batch's data.
 *
 * Its role may do exactly what the indexer does: read the events stream (the event source's grant), `POST /_bulk`
 * on the domain (`es:ESHttpPost` on `<domain>/_bulk` only; fine-grained access control maps the role to kfek's
 * writer role, which may only write the log indices), `GET` kfek's ingest pipeline when {@link
 * DirectToOpenSearchProps.ingestPipeline} is set (`es:ESHttpGet` on that one path), and PutObject under the
 * failed-documents prefix.
 *
 * The mapping starts at the stream's oldest record (TRIM_HORIZON): on a first deploy nothing the transform wrote
 * precedes it, and on a switch from Firehose it re-reads what the deleted delivery stream may not have delivered,
 * overwriting by id what it had (docs/delivery.md, "Switching delivery").
 */
export class DirectToOpenSearch extends Construct {
  readonly function: lambda.IFunction;
  readonly role: iam.IRole;
  readonly logGroup: logs.ILogGroup;
  /** The event source mapping on the events stream: the reader a switch of delivery orders against. */
  readonly eventSourceMapping: lambda.EventSourceMapping;

  constructor(scope: Construct, id: string, props: DirectToOpenSearchProps) {
    super(scope, id);
    const s = props.settings;
    const { collection } = props;
    const destination = destinationOf(this, props);
    const { ingestPipeline } = props;
    const fn = new TransformFunction(this, 'Indexer', {
      entry: INDEXER_ENTRY,
      description: 'kfek: documents from the events stream to OpenSearch with their index, id and routing',
      functionName: props.functionName,
      logGroupName: props.logGroupName,
      roleName: props.roleName,
      ...(collection === undefined
        ? {}
        : {
            role: iam.Role.fromRoleArn(this, 'WriterRole', collection.writerRole.roleArn, { mutable: true }),
          }),
      memorySizeInMb: s.memoryMb,
      timeout: Duration.seconds(s.timeoutSeconds),
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
      environment: indexerEnvironment({
        endpoint: destination.endpoint,
        ...(collection === undefined ? {} : { signingService: 'aoss' as const }),
        failedDocumentsBucket: props.bucket.bucketName,
        failedDocumentsPrefix: props.failedDocumentsPrefix,
        indexPrefix: props.indexPrefix,
        indexRotation: props.indexRotation,
        indexShards: props.indexShards,
        ...(s.bulkMaxBytes === undefined ? {} : { bulkMaxBytes: s.bulkMaxBytes }),
        ...(s.concurrency === undefined ? {} : { concurrency: s.concurrency }),
        ...(props.routes === undefined ? {} : { routes: props.routes }),
        ...(ingestPipeline === undefined ? {} : { ingestPipeline }),
        ...(props.routeRecord === undefined ? {} : { routeRecord: props.routeRecord }),
        ...(props.metricsNamespace === undefined ? {} : { metricsNamespace: props.metricsNamespace }),
      }),
      eventSource: {
        stream: props.eventsStream,
        onFailureBucket: props.bucket,
        batchSize: s.batchSize,
        maxBatchingWindow: Duration.seconds(s.maxBatchingWindowSeconds),
        parallelizationFactor: s.parallelizationFactor,
        retryAttempts: s.retryAttempts,
        maxRecordAge: Duration.seconds(s.maxRecordAgeSeconds),
      },
    });
    this.function = fn.function;
    this.role = fn.role;
    this.logGroup = fn.logGroup;
    const mapping = fn.function.node.children.find(
      (c): c is lambda.EventSourceMapping => c instanceof lambda.EventSourceMapping,
    );
    if (mapping === undefined) throw new Error(`${this.node.path}: the indexer has no event source mapping`);
    this.eventSourceMapping = mapping;

    for (const statement of destination.access) this.role.addToPrincipalPolicy(statement);
    justifyWildcardResources(this.role, [
      grantPrefixWrite(
        this.role,
        props.bucket,
        props.failedDocumentsPrefix,
        'The indexer names each failed-documents object itself (date folders and a unique name, Firehose layout) ' +
          'under this prefix. PutObject only, no read or delete.',
      ),
      onFailureDestinationJustification(props.bucket),
    ]);
  }
}

/** Where the indexer sends `_bulk` (and reads its route table) and what IAM must allow for it. */
function destinationOf(
  scope: Construct,
  props: Pick<DirectToOpenSearchProps, 'domain' | 'collection' | 'ingestPipeline' | 'routeRecord'>,
): { readonly endpoint: string; readonly access: readonly iam.PolicyStatement[] } {
  const { domain, collection, ingestPipeline } = props;
  if (collection === undefined && props.routeRecord !== undefined) {
    throw new Error(
      `${scope.node.path}: routeRecord "${props.routeRecord}" is a Serverless collection's record, and this indexer ` +
        'writes to a domain, whose route table is in its ingest pipeline: set ingestPipeline instead (docs/delivery.md).',
    );
  }
  if (collection !== undefined && ingestPipeline !== undefined) {
    throw new Error(
      `${scope.node.path}: a Serverless collection has no ingest pipeline, so the indexer cannot read ` +
        `ingestPipeline "${ingestPipeline}" there; leave ingestPipeline unset on a collection (docs/serverless.md).`,
    );
  }
  if (collection !== undefined && domain === undefined) {
    // IAM admits the request to the collection's data plane with `aoss:APIAccessAll` ("Grants permission to all
    // supported OpenSearch APIs", resource type collection:
    // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonopensearchserverless.html); the
    // collection's data access policy then decides per index (kfek's families only).
    return {
      endpoint: collection.endpoint,
      access: [new iam.PolicyStatement({ actions: ['aoss:APIAccessAll'], resources: [collection.arn] })],
    };
  }
  if (domain !== undefined && collection === undefined) {
    return { endpoint: `https://${domain.domainEndpoint}`, access: domainAccess(domain, ingestPipeline) };
  }
  throw new Error(`${scope.node.path}: give the indexer exactly one destination, a domain or a collection.`);
}

/**
 * The indexer's requests on a domain, each on exactly its path. IAM matches the request's path, not its query string
 * (`?pipeline=_none`), against the domain subresource, and a `*` there would match any path below it
 * (https://docs.aws.amazon.com/opensearch-service/latest/developerguide/ac.html, "Resource-based policies"), so no
 * resource here has one:
 * - `POST /_bulk`: the indexer names each document's index in the bulk body, never in the path;
 * - with `ingestPipeline`, `GET /_ingest/pipeline/<that name>`: the one pipeline whose route table it reads
 *   (lambda/indexer/routes.ts), not `_ingest/pipeline/*`, which would read every pipeline of the domain. kfek's names
 *   hold only a-z, 0-9, `.`, `_` and `-` (core/contracts/config-rules.ts), which a path carries unescaped, so the
 *   path IAM sees is the name as given.
 */
function domainAccess(domain: opensearch.IDomain, ingestPipeline: string | undefined): iam.PolicyStatement[] {
  const bulk = new iam.PolicyStatement({
    actions: ['es:ESHttpPost'],
    resources: [`${domain.domainArn}/_bulk`],
  });
  if (ingestPipeline === undefined) return [bulk];
  return [
    bulk,
    new iam.PolicyStatement({
      actions: ['es:ESHttpGet'],
      resources: [`${domain.domainArn}/_ingest/pipeline/${ingestPipeline}`],
    }),
  ];
}
