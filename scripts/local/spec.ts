import type { IndexRotation } from '../../core/contracts/index-naming';
import type { TransformRoute } from '../../core/contracts/routes';
import type { Transport } from '../../core/config';

/**
 * What the local runner needs to know about the pipeline, derived from the same typed config the CDK app
 * synthesizes (core/config.ts `resolveConfig` over cdk.json's context) by {@link localSpecFromConfig}.
 */
export interface LocalPipelineSpec {
  /** Region in the ARNs moto builds; any region works locally. */
  readonly region: string;
  /** moto's default account. */
  readonly accountId: string;
  /** The log groups to create and subscribe (created locally whether the config creates or imports them). */
  readonly logGroups: readonly LocalLogGroup[];
  readonly rawStream: LocalStream;
  readonly eventsStream: LocalStream;
  /** The bucket the transform dead-letters poison records to. */
  readonly deadLetterBucket: string;
  /** @default - the handler's default prefix */
  readonly deadLetterPrefix?: string;
  /**
   * The profile's routes, as the transform gets them (config `routes`, docs/teams-and-routes.md).
   * @default - none: every event is the default route's
   */
  readonly routes?: readonly TransformRoute[];
  /**
   * What carries raw records through the transform: Lambda's event source mapping (`lambda`) or an EventBridge
   * pipe (`pipes`), as config `transport` says.
   * @default 'lambda'
   */
  readonly transport?: Transport;
  /** The transform's source settings; the pipe's (transport `pipes`) are the same config values. */
  readonly eventSource: {
    readonly batchSize: number;
    readonly retryAttempts: number;
    readonly timeoutInMillis: number;
    readonly memorySizeInMb: number;
    readonly functionName: string;
    /** @default 0 */
    readonly maxBatchingWindowInMillis?: number;
    /** @default - no limit */
    readonly maxRecordAgeInMillis?: number;
  };
  /**
   * The pipe (transport `pipes`): its name and its dead-letter queue's.
   * @default - none (transport `lambda`)
   */
  readonly pipe?: {
    readonly name: string;
    readonly deadLetterQueueName: string;
  };
  readonly delivery: {
    /** The index name for an arrival time (prefix plus rotation suffix, as Firehose names it). */
    readonly indexFor: (arrival: Date) => string;
    /** The pattern covering every rotated index of the default route, e.g. `logs-*`. */
    readonly indexPattern: string;
    /**
     * What to search for every event: the default route's pattern and each route's (`logs-*,payments-*`), since the
     * ingest pipeline moves a route's documents to its own indices.
     */
    readonly searchPattern: string;
    readonly retryDurationInMillis: number;
    /**
     * The transform writes KPL aggregated records (config `delivery.aggregation`); the stand-in de-aggregates
     * either way, as Firehose does.
     * @default DEFAULT_EVENTS_AGGREGATION (core/contracts/transform-env.ts)
     */
    readonly aggregation?: boolean;
    /** The default route's index prefix (config `delivery.indexPrefix`): the direct indexer's environment. */
    readonly indexPrefix?: string;
    /** @default 'OneDay' */
    readonly indexRotation?: IndexRotation;
    /** Primary shards of the index template (the routing's length). @default 1 */
    readonly indexShards?: number;
    /**
     * Where the direct path's indexer keeps refused documents in the local bucket (config
     * `delivery.failedDocumentsPrefix`), where `kfek reconcile --local-dir --bucket` reads them.
     * @default LOCAL_FAILED_DOCUMENTS_PREFIX (direct-delivery.ts), the config's default
     */
    readonly failedDocumentsPrefix?: string;
    /**
     * The default route's ingest pipeline the runner provisions: the direct indexer reads the kept routes from it,
     * as in AWS (lambda/indexer/routes.ts). @default - none: the profile's routes only
     */
    readonly ingestPipeline?: string;
    /**
     * The collection's record index whose route pairs the direct indexer reads (a serverless profile, never with
     * {@link ingestPipeline}; lambda/indexer/routes.ts). @default - none: the profile's routes only
     */
    readonly routeRecord?: string;
  };
}

export interface LocalLogGroup {
  readonly name: string;
  /** The subscription filter's pattern (moto ignores it and forwards every event). */
  readonly filterPattern: string;
  readonly filterName: string;
}

export interface LocalStream {
  readonly name: string;
  readonly shardCount: number;
}

/** moto's default account id: its ARNs carry it. */
export const MOTO_ACCOUNT_ID = '123456789012';
