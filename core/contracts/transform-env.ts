/**
 * The transform functions' environment: a contract between whoever sets it (the Pipeline stack at synth, the local
 * runner of `npm start`) and whoever reads it (lambda/transform/env.ts, once per container). The names, the
 * defaults the reader applies and the service names live here only; {@link transformEnvironment} is the one writer.
 */

/** How raw records get from the raw stream through the transform to the events stream. */
export type Transport = 'lambda' | 'pipes';

/** Environment variable names the transform reads. */
export const TransformEnvVar = {
  /** ARN of the events stream the Kinesis handler writes to. */
  EventsStreamArn: 'EVENTS_STREAM_ARN',
  /** Bucket (name, not ARN) for dead-letter objects of poison records. */
  DeadLetterBucket: 'DEAD_LETTER_BUCKET',
  /** Key prefix of dead-letter objects. */
  DeadLetterPrefix: 'DEAD_LETTER_PREFIX',
  /**
   * The regions the pipeline receives logs from, comma-separated (the profile's region and `sources.regions`): the
   * only regions `cloudwatch.region` may name (issue 22, item 4). Unset: a subscription filter's region is taken
   * as it is (local runs).
   */
  SourceRegions: 'SOURCE_REGIONS',
  /** `true` or `false`: write KPL aggregated records (config `delivery.aggregation`). */
  EventsAggregation: 'EVENTS_AGGREGATION',
  /** Powertools' own variable: the CloudWatch namespace of the EMF metrics. */
  MetricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /** Powertools' own variable: the `service` of log lines and the `service` dimension of metrics. */
  ServiceName: 'POWERTOOLS_SERVICE_NAME',
} as const;
export type TransformEnvVar = (typeof TransformEnvVar)[keyof typeof TransformEnvVar];

/** CloudWatch namespace of the transform's metrics when none is set (the deployed one is the config's `name`). */
export const DEFAULT_METRICS_NAMESPACE = 'kfek';

/**
 * Whether the transform writes KPL aggregated records when nothing says (the reader's default, config
 * `delivery.aggregation`'s default, and the local runner's).
 */
export const DEFAULT_EVENTS_AGGREGATION = true;

/** Key prefix of dead-letter objects when none is set (config `transform.deadLetterPrefix` has the same default). */
export const DEFAULT_DEAD_LETTER_PREFIX = 'dead-letter/transform/';

/**
 * Powertools service names: the `service` field of log lines and the `service` dimension of every metric, which
 * the alarms and the dashboard select on. The local runner uses the deployed names, so a query written against
 * local logs works on CloudWatch.
 */
export const TransformServiceName = {
  /** The Kinesis event source mapping handler (transport `lambda`). */
  kinesis: 'transform',
  /** The EventBridge Pipes enrichment (transport `pipes`). */
  pipes: 'transform-pipes',
} as const;
export type TransformServiceName = (typeof TransformServiceName)[keyof typeof TransformServiceName];

/** The service name the transform of a transport publishes its metrics under. */
export function transformServiceName(transport: Transport): TransformServiceName {
  return transport === 'pipes' ? TransformServiceName.pipes : TransformServiceName.kinesis;
}

/** What the Pipes enrichment needs: the settings both entry points share. */
export interface CommonTransformSettings {
  /** @default - none: a subscription filter's region is taken as it is */
  readonly sourceRegions?: readonly string[];
  /** @default {@link DEFAULT_METRICS_NAMESPACE} */
  readonly metricsNamespace?: string;
  readonly serviceName: TransformServiceName;
}

/** What the Kinesis handler needs besides the common settings. */
export interface KinesisTransformSettings extends CommonTransformSettings {
  readonly eventsStreamArn: string;
  readonly deadLetterBucket: string;
  /** @default {@link DEFAULT_DEAD_LETTER_PREFIX} */
  readonly deadLetterPrefix?: string;
  /** @default true */
  readonly aggregation?: boolean;
}

/**
 * The environment variables for a transform function: the one writer of {@link TransformEnvVar}. Optional settings
 * left out stay unset, so the reader's default applies. Values may be CDK tokens (strings at synth).
 */
export function transformEnvironment(
  settings: CommonTransformSettings | KinesisTransformSettings,
): Record<string, string> {
  const env: Record<string, string> = {};
  if (settings.sourceRegions !== undefined && settings.sourceRegions.length > 0) {
    env[TransformEnvVar.SourceRegions] = settings.sourceRegions.join(',');
  }
  if (settings.metricsNamespace !== undefined) {
    env[TransformEnvVar.MetricsNamespace] = settings.metricsNamespace;
  }
  env[TransformEnvVar.ServiceName] = settings.serviceName;
  if ('eventsStreamArn' in settings) {
    env[TransformEnvVar.EventsStreamArn] = settings.eventsStreamArn;
    env[TransformEnvVar.DeadLetterBucket] = settings.deadLetterBucket;
    if (settings.deadLetterPrefix !== undefined) {
      env[TransformEnvVar.DeadLetterPrefix] = settings.deadLetterPrefix;
    }
    if (settings.aggregation !== undefined) {
      env[TransformEnvVar.EventsAggregation] = settings.aggregation ? 'true' : 'false';
    }
  }
  return env;
}
