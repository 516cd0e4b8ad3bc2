/**
 * The local pipeline as one object: creates the resources, runs the transform under its transport's stand-in (the
 * event-source loop, or the pipe) and the delivery loop (Firehose stand-in), writes events and waits until every
 * event is searchable or accounted for.
 *
 * Over ~300 lines (about 360) because start, drain and stop share the loops' lifecycle; the loops, the transform's
 * environment (transform-runtime.ts) and the pipe's assembly (pipes-transport.ts) live in their own files.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import * as path from 'node:path';
import { LOCAL_KEPT_FOLDERS } from '../../core/contracts/kept-data';
import { type LocalAwsClients, localAwsClients } from './aws-clients';
import { ChildProcessHandler } from './child-handler';
import { type PipelineDelivery, startDelivery } from './deliveries';
import type { LocalPipelineProps } from './pipeline-props';
import { localFailedDocumentsPrefix } from './direct-delivery';
import { DrainTimeoutError } from './errors';
import { EventSourceLoop, type EventSourceStats, type KinesisBatchHandler } from './event-source-loop';
import { LatencyProbe } from './latency-probe';
import type { LocalPipesTransport } from './pipes-transport';
import { routeAccounting } from './route-accounting';
import { createLocalResources, type LocalResources } from './resources';
import { type OutgoingLogEvent, type SendOptions, sendLogEvents, type SentLogEvent } from './sender';
import { sleep } from './shard-reader';
import {
  countDistinctEvents,
  documentsByIndex,
  countDocuments,
  errorsPer15Minutes,
  type RunSummary,
} from './summary';
import type { ThroughputReport } from './throughput';
import { loadTransformHandler, localTransformEnv, TRANSFORM_HANDLER_MODULES } from './transform-runtime';

/** When a measured run wrote and when its documents became searchable (epoch millis). */
export interface RunTiming {
  /** Start of the first PutLogEvents call. */
  readonly firstWriteAt: number;
  /** End of the last PutLogEvents call. */
  readonly lastWriteEndedAt: number;
  /** When a search (no forced refresh) first found every indexed document; undefined if it never did. */
  readonly searchableAt: number | undefined;
}

/** Where the local stand-ins keep what AWS would keep in S3 / on-failure destinations. */
export function localFolders(workDir: string): { failedDocuments: string; onFailure: string } {
  return {
    failedDocuments: path.join(workDir, LOCAL_KEPT_FOLDERS.failedDocuments),
    onFailure: path.join(workDir, LOCAL_KEPT_FOLDERS.onFailure),
  };
}

/**
 * What carries raw records through the transform, as the pipeline drives it: the event-source loop (transport
 * `lambda`) or the pipe stand-in (transport `pipes`).
 */
export interface TransformTransportLoop {
  start(): Promise<void>;
  stop(): Promise<void>;
  failure(): Error | undefined;
  caughtUpSince(): number | undefined;
  lastInvocationEndedAt(): number;
  snapshot(): EventSourceStats;
}

/**
 * The whole pipeline on one machine, minus the processes (moto and OpenSearch are started by the caller):
 * creates the resources from the spec, runs the transform under its transport's stand-in (Lambda's event source
 * mapping, or the EventBridge pipe) and the Firehose stand-in, writes log events, waits until everything is
 * indexed or accounted for, and summarizes. `npm start` (scripts/local/main.ts) and the end-to-end tests
 * (test/e2e/) both drive it.
 */
export class LocalPipeline {
  private constructor(
    readonly props: LocalPipelineProps,
    readonly clients: LocalAwsClients,
    readonly resources: LocalResources,
    /** The transform's source loop: the event-source loop, or the pipe stand-in (then also {@link pipe}). */
    readonly eventSource: TransformTransportLoop,
    readonly delivery: PipelineDelivery,
    /** The transform's child process, when `transformProcess` is `'child'`. */
    readonly transformChild: ChildProcessHandler | undefined,
    /** The pipe stand-in and its dead-letter queue (transport `pipes`). */
    readonly pipe: LocalPipesTransport | undefined,
  ) {
    this.now = props.now ?? Date.now;
  }

  /** The run's clock ({@link LocalPipelineProps.now}). */
  private readonly now: () => number;

  static async start(props: LocalPipelineProps): Promise<LocalPipeline> {
    const { spec } = props;
    const clients = localAwsClients(props.awsEndpoint, spec.region);
    let pipe: LocalPipesTransport | undefined;
    try {
      const resources = await createLocalResources(clients, spec);
      const transformEnv = localTransformEnv({
        spec,
        resources,
        awsEndpoint: props.awsEndpoint,
        transformKinesisEndpoint: props.transformKinesisEndpoint,
        logLevel: props.transformLogLevel,
      });
      const folders = localFolders(props.workDir);
      let eventSource: TransformTransportLoop;
      let transformChild: ChildProcessHandler | undefined;
      if (spec.transport === 'pipes') {
        // Loaded only here: the default (lambda) run never loads the pipe stand-in or the SQS client.
        const { createLocalPipesTransport } = await import('./pipes-transport');
        pipe = await createLocalPipesTransport({
          spec,
          awsEndpoint: props.awsEndpoint,
          clients,
          resources,
          transformEnv,
          enrichment: props.enrichment,
          transformProcess: props.transformProcess,
          transformChildPreload: props.transformChildPreload,
          log: props.log,
          trace: props.trace,
          now: props.now,
        });
        eventSource = pipe.loop;
        transformChild = pipe.child;
      } else {
        transformChild =
          props.handler === undefined && props.transformProcess === 'child'
            ? new ChildProcessHandler({
                modulePath: TRANSFORM_HANDLER_MODULES.lambda,
                env: transformEnv,
                preload: props.transformChildPreload,
                log: props.log,
              })
            : undefined;
        const loaded =
          props.handler ??
          transformChild?.handler ??
          ((await loadTransformHandler(
            TRANSFORM_HANDLER_MODULES.lambda,
            transformEnv,
          )) as KinesisBatchHandler);
        const handler = props.wrapHandler?.(loaded) ?? loaded;
        eventSource = new EventSourceLoop({
          kinesis: clients.kinesis,
          streamArn: resources.rawStreamArn,
          handler,
          batchSize: spec.eventSource.batchSize,
          retryAttempts: spec.eventSource.retryAttempts,
          timeoutInMillis: spec.eventSource.timeoutInMillis,
          memorySizeInMb: spec.eventSource.memorySizeInMb,
          functionName: spec.eventSource.functionName,
          region: spec.region,
          accountId: spec.accountId,
          onFailureDir: folders.onFailure,
          log: props.log,
          trace: props.trace,
          now: props.now,
        });
      }
      await eventSource.start();
      const delivery = await startDelivery(props, clients, resources, folders);
      return new LocalPipeline(props, clients, resources, eventSource, delivery, transformChild, pipe);
    } catch (error) {
      pipe?.sqs.destroy();
      clients.destroy();
      throw error;
    }
  }

  /** Writes log events with PutLogEvents (see {@link sendLogEvents}). */
  async send(events: readonly OutgoingLogEvent[], options: SendOptions = {}): Promise<SentLogEvent[]> {
    return sendLogEvents(this.clients.logs, events, options);
  }

  /**
   * Waits until everything written before this call (log events, records put on the raw stream) has gone all the
   * way through: the event source found every raw shard empty in a read that started after this call, and the
   * delivery loop found every events shard empty, with nothing buffered, in a read that started after the
   * event source's last invocation returned. moto applies writes before it answers, so no record can be in
   * flight between the two. Throws {@link DrainTimeoutError} after `timeoutInMillis`, or a loop's own error.
   */
  async waitUntilSettled(timeoutInMillis = 120_000): Promise<void> {
    const since = this.now();
    const deadline = since + timeoutInMillis;
    while (this.now() < deadline) {
      const failure = this.eventSource.failure() ?? this.delivery.failure();
      if (failure !== undefined) throw failure;
      const sourceIdle = this.eventSource.caughtUpSince();
      const deliveryIdle = this.delivery.caughtUpSince();
      if (
        sourceIdle !== undefined &&
        sourceIdle > since &&
        deliveryIdle !== undefined &&
        deliveryIdle > Math.max(since, this.eventSource.lastInvocationEndedAt())
      ) {
        return;
      }
      await sleep(50);
    }
    throw new DrainTimeoutError(
      `the pipeline did not settle within ${timeoutInMillis / 1000} s: event source ` +
        `${JSON.stringify(this.eventSource.snapshot())}, delivery ${JSON.stringify(this.delivery.snapshot())}`,
    );
  }

  /**
   * After {@link waitUntilSettled}: polls `_count` over the run's log streams, without forcing a refresh, until a
   * search finds every document OpenSearch acknowledged as new (indexed minus overwritten), so the time includes
   * the index's refresh interval as a user's search would see it. Returns when that happened, or undefined after
   * `timeoutInMillis`.
   */
  async waitUntilSearchable(
    logStreams: readonly string[],
    timeoutInMillis = 60_000,
  ): Promise<number | undefined> {
    const { documentsIndexed, documentsOverwritten } = this.delivery.snapshot();
    const expected = documentsIndexed - documentsOverwritten;
    const deadline = this.now() + timeoutInMillis;
    while (this.now() < deadline) {
      const visible = await countDocuments(
        this.props.search,
        this.props.spec.delivery.searchPattern,
        logStreams,
        false,
      );
      if (visible >= expected) return this.now();
      await sleep(100);
    }
    return undefined;
  }

  /** Objects in the dead-letter bucket (one per poison record). */
  async deadLetterKeys(): Promise<string[]> {
    const keys: string[] = [];
    const failedDocuments = localFailedDocumentsPrefix(this.props.spec);
    let token: string | undefined;
    do {
      const out = await this.clients.s3.send(
        new ListObjectsV2Command({ Bucket: this.resources.deadLetterBucket, ContinuationToken: token }),
      );
      for (const { Key } of out.Contents ?? []) {
        // The direct indexer keeps its refused documents in the same local bucket (direct-delivery.ts).
        if (Key !== undefined && !Key.startsWith(failedDocuments)) keys.push(Key);
      }
      token = out.IsTruncated === true ? out.NextContinuationToken : undefined;
    } while (token !== undefined);
    return keys;
  }

  /**
   * What the routes' drop rules kept out of this run and their multi-line rules joined (route-accounting.ts); nothing
   * without such rules.
   */
  private routeProcessing(sent: readonly SentLogEvent[]): Pick<RunSummary, 'processing'> {
    const processing = routeAccounting(sent, this.props.spec.routes ?? [], this.props.spec.accountId);
    return processing === undefined ? {} : { processing };
  }

  /** Creates a latency probe over this pipeline's indices, for a run that writes `expectedEvents`. */
  newLatencyProbe(expectedEvents: number, sampleSize?: number): LatencyProbe {
    return new LatencyProbe({
      now: this.props.now,
      search: this.props.search,
      indexPattern: this.props.spec.delivery.searchPattern,
      expectedEvents,
      sampleSize,
    });
  }

  /** Queries OpenSearch and the counters for the summary of one run (identified by its log streams). */
  async summarize(
    runId: string,
    sent: readonly SentLogEvent[],
    probe: LatencyProbe,
    startedAt: number,
    timing?: RunTiming,
  ): Promise<RunSummary> {
    const indexPattern = this.props.spec.delivery.searchPattern;
    const logStreams = [...new Set(sent.map((e) => e.logStreamName))];
    // Let the probe see the sample before anything forces a refresh (the count below does).
    await probe.waitUntilComplete(30_000);
    const [eventsSearchable, documentsSearchable, byIndex, errorBins, deadLetterKeys, latency] =
      await Promise.all([
        countDistinctEvents(this.props.search, indexPattern, logStreams),
        countDocuments(this.props.search, indexPattern, logStreams),
        documentsByIndex(this.props.search, indexPattern, logStreams),
        errorsPer15Minutes(this.props.search, indexPattern, logStreams),
        this.deadLetterKeys(),
        probe.stop(),
      ]);
    return {
      runId,
      eventsWritten: sent.length,
      eventsSearchable,
      documentsSearchable,
      documentsByIndex: byIndex,
      ...this.routeProcessing(sent),
      eventSource: this.eventSource.snapshot(),
      ...(this.pipe === undefined ? {} : { pipe: this.pipe.loop.snapshot() }),
      delivery: this.delivery.snapshot(),
      deadLettered: deadLetterKeys.length,
      errorBins,
      latency,
      elapsedInMillis: this.now() - startedAt,
      throughput: timing === undefined ? undefined : this.throughput(sent.length, timing),
    };
  }

  private throughput(events: number, timing: RunTiming): ThroughputReport {
    const source = this.eventSource.snapshot();
    const delivery = this.delivery.snapshot();
    return {
      events,
      endToEndInMillis:
        timing.searchableAt === undefined ? undefined : timing.searchableAt - timing.firstWriteAt,
      writeInMillis: timing.lastWriteEndedAt - timing.firstWriteAt,
      transformInvocations: source.invocations,
      transformBusyInMillis: source.invocationMillis,
      eventsStreamRecords: delivery.recordsRead,
      documentsIndexed: delivery.documentsIndexed,
      bulkRequests: delivery.bulkRequests,
      indexingSpanInMillis: delivery.indexingSpanInMillis,
      emulatorErrors: source.readErrors + delivery.readErrors,
    };
  }

  /** Stops both loops (delivering what is buffered) and closes the clients. */
  async stop(): Promise<void> {
    try {
      await this.eventSource.stop();
      await this.transformChild?.stop();
      await this.delivery.stop();
    } finally {
      this.pipe?.sqs.destroy();
      this.clients.destroy();
    }
  }
}
