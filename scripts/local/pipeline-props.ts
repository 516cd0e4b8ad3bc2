/**
 * What the local pipeline (pipeline.ts) is started with, in a file of its own so the deliveries it starts
 * (deliveries.ts) read the same props without importing the pipeline that imports them.
 */
import type { DirectDeliveryProps } from './direct-delivery';
import type { KinesisBatchHandler } from './event-source-loop';
import type { PipesEnrichment } from './pipes-loop';
import type { SearchHttp } from './search-http';
import type { LocalPipelineSpec } from './spec';

export interface LocalPipelineProps {
  readonly spec: LocalPipelineSpec;
  /** moto's endpoint, e.g. `http://127.0.0.1:5123`. */
  readonly awsEndpoint: string;
  /**
   * The Kinesis endpoint the transform writes to (a fault-injecting proxy in the end-to-end tests).
   * @default - awsEndpoint
   */
  readonly transformKinesisEndpoint?: string;
  readonly search: SearchHttp;
  /** Folder for the failed-documents and on-failure folders, e.g. `.kfek/`. */
  readonly workDir: string;
  /**
   * The transform handler (transport `lambda`); tests of the runner itself may pass another.
   * @default - `handler` of lambda/transform/handler.ts, loaded with the Lambda environment set
   */
  readonly handler?: KinesisBatchHandler;
  /**
   * Wraps the transform handler (transport `lambda`): end-to-end tests that lose, hold or fail records on purpose
   * (`kfek reconcile`'s) put their fault in front of the real handler.
   * @default - the handler as it is
   */
  readonly wrapHandler?: (handler: KinesisBatchHandler) => KinesisBatchHandler;
  /**
   * The Pipes enrichment (transport `pipes`); tests of the runner itself may pass another.
   * @default - `handler` of lambda/transform/pipes.ts, loaded with the Lambda environment set
   */
  readonly enrichment?: PipesEnrichment;
  /**
   * Where the transform handler runs: in this process, or in a forked child process (restarted when it dies, so a
   * fault test can SIGKILL it mid-batch; see scripts/local/child-handler.ts). Ignored when `handler` (or
   * `enrichment`) is given.
   * @default 'in-process'
   */
  readonly transformProcess?: 'in-process' | 'child';
  /**
   * Modules the transform's child process loads first (`node -r`), when `transformProcess` is `'child'`.
   * @default - none
   */
  readonly transformChildPreload?: readonly string[];
  /**
   * Powertools log level inside the transform (its JSON logs go to this process' stdout, as to CloudWatch).
   * @default 'WARN'
   */
  readonly transformLogLevel?: string;
  /** @default 1000 */
  readonly deliveryBufferIntervalInMillis?: number;
  /** The Firehose stand-in, or kfek's own indexer (deliveries.ts; issue 41). @default 'firehose' */
  readonly delivery?: 'firehose' | 'direct';
  /**
   * Direct delivery's batch size, `_bulk` concurrency, body size, SigV4 service (`aoss` on a collection) and key.
   * @default - direct-delivery.ts
   */
  readonly direct?: Pick<
    DirectDeliveryProps,
    'batchSize' | 'concurrency' | 'bulkMaxBytes' | 'signingService' | 'credentials'
  >;
  /** @default - silent */
  readonly log?: (line: string) => void;
  /** Per-invocation and per-bulk timings. @default - silent */
  readonly trace?: (line: string) => void;
  /**
   * The one clock of the run: every loop, the latency probe and the waits read it (tests pass a fake).
   * @default Date.now
   */
  readonly now?: () => number;
}
