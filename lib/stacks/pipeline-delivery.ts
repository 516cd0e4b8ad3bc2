/**
 * The events stream's reader in the Pipeline stack (config `delivery.mode`, docs/delivery.md): the Firehose delivery
 * stream, or the indexer function. Created in the stack's scope with the construct ids it always had (`Delivery`,
 * `Indexer`), so moving the choice here changed no logical id.
 */
import { Duration, Size } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { DeliveryConfig, RouteConfig } from '../../core/config';
import type { PhysicalNames } from '../../core/contracts/physical-names';
import { serializeRoutes } from '../../core/contracts/transform-env';
import { registryIndex } from '../../core/opensearch/registry';
import { ingestPipelineName } from '../../core/opensearch/route-spec';
import { OPENSEARCH_SPEC_DEFAULTS } from '../../core/opensearch/spec';
import { type CollectionTarget, DirectToOpenSearch } from '../constructs/direct-to-opensearch';
import { FirehoseToOpenSearch } from '../constructs/firehose-to-opensearch';

export interface PipelineDeliveryProps {
  readonly eventsStream: kinesis.IStream;
  /** The domain (`openSearch.kind: domain`); exactly one of this and {@link collection}. */
  readonly domain?: opensearch.IDomain;
  /** The Serverless collection (`openSearch.kind: serverless`): only the indexer writes one (docs/serverless.md). */
  readonly collection?: CollectionTarget;
  readonly bucket: s3.IBucket;
  readonly delivery: DeliveryConfig;
  /** Primary shards per index (config `openSearch.indexTemplate.shards`), for the indexer's routing. */
  readonly indexShards: number;
  readonly routes: readonly RouteConfig[];
  readonly metricsNamespace: string;
  readonly logRetention: logs.RetentionDays;
  /** @default - names CloudFormation generates */
  readonly names?: Pick<
    PhysicalNames,
    'deliveryStream' | 'deliveryLogGroup' | 'indexerFunction' | 'indexerLogGroup' | 'indexerRole'
  >;
}

export interface PipelineDelivery {
  /** The Firehose delivery (mode `firehose`). */
  readonly firehose?: FirehoseToOpenSearch;
  /** The indexer (mode `direct`). */
  readonly indexer?: DirectToOpenSearch;
  /** The role that writes OpenSearch, mapped to kfek's writer role. */
  readonly writerRole: iam.IRole;
  /** What reads the events stream: the delivery stream, or the indexer's event source mapping. */
  readonly reader: Construct;
  readonly logGroup: logs.ILogGroup;
}

/** Creates the profile's delivery in `scope` (the Pipeline stack). */
export function createDelivery(scope: Construct, props: PipelineDeliveryProps): PipelineDelivery {
  const d = props.delivery;
  const names = props.names;
  if (d.mode === 'direct') {
    const indexer = new DirectToOpenSearch(scope, 'Indexer', {
      eventsStream: props.eventsStream,
      ...(props.collection === undefined ? { domain: props.domain } : { collection: props.collection }),
      bucket: props.bucket,
      failedDocumentsPrefix: d.failedDocumentsPrefix,
      indexPrefix: d.indexPrefix,
      indexRotation: d.indexRotation,
      indexShards: props.indexShards,
      settings: d.direct,
      ...(props.routes.length === 0 ? {} : { routes: serializeRoutes(props.routes) }),
      // The indexer reads the route table, retired routes included, where the provisioner writes it (named as the
      // provisioner names it: kfek's default name): on a domain the ingest pipeline of the profile's prefix; on a
      // collection, which has none, the route pairs in kfek's record index (docs/serverless.md).
      ...(props.collection === undefined
        ? { ingestPipeline: ingestPipelineName(OPENSEARCH_SPEC_DEFAULTS.name, d.indexPrefix) }
        : { routeRecord: registryIndex(OPENSEARCH_SPEC_DEFAULTS.name) }),
      metricsNamespace: props.metricsNamespace,
      functionName: names?.indexerFunction,
      logGroupName: names?.indexerLogGroup,
      roleName: names?.indexerRole,
      logRetention: props.logRetention,
    });
    return {
      indexer,
      writerRole: indexer.role,
      reader: indexer.eventSourceMapping,
      logGroup: indexer.logGroup,
    };
  }
  if (props.domain === undefined) {
    throw new Error(`${scope.node.path}: Firehose delivers to a domain only (docs/serverless.md).`);
  }
  const firehose = new FirehoseToOpenSearch(scope, 'Delivery', {
    sourceStream: props.eventsStream,
    domain: props.domain,
    indexName: d.indexPrefix,
    indexRotation: d.indexRotation,
    backupBucket: props.bucket,
    backupPrefix: d.failedDocumentsPrefix,
    bufferingInterval: Duration.seconds(d.bufferingIntervalSeconds),
    bufferingSize: Size.mebibytes(d.bufferingSizeMb),
    retryDuration: Duration.seconds(d.retryDurationSeconds),
    logRetention: props.logRetention,
    deliveryStreamName: names?.deliveryStream,
    logGroupName: names?.deliveryLogGroup,
  });
  return {
    firehose,
    writerRole: firehose.role,
    reader: firehose.deliveryStream,
    logGroup: firehose.logGroup,
  };
}
