/**
 * The transform functions' configuration, read once per container from the environment. The variable names and
 * defaults are a contract owned by core/contracts/transform-env.ts, whose `transformEnvironment` writes them.
 *
 * Handlers call these at module scope, so a misconfigured function fails at init with a message naming the
 * variable, instead of failing every record.
 */
import {
  DEFAULT_DEAD_LETTER_PREFIX,
  DEFAULT_EVENTS_AGGREGATION,
  DEFAULT_METRICS_NAMESPACE,
  parseRoutes,
  TransformEnvVar,
  TransformServiceName,
} from '../../core/contracts/transform-env';
import type { TransformRoute } from '../../core/contracts/routes';
import { TransformError } from '../../core/transform/errors';

/** Base class of configuration errors. */
export class TransformEnvError extends TransformError {
  constructor(message: string) {
    super(message);
    this.name = 'TransformEnvError';
  }
}

/** A required variable is unset or empty. */
export class MissingEnvironmentVariableError extends TransformEnvError {
  constructor(readonly variable: string) {
    super(
      `Environment variable ${variable} is required but not set; set it on the function (the CDK stack does).`,
    );
    this.name = 'MissingEnvironmentVariableError';
  }
}

/** A variable is set to something unusable. */
export class InvalidEnvironmentVariableError extends TransformEnvError {
  constructor(
    readonly variable: string,
    value: string,
    expected: string,
  ) {
    super(`Environment variable ${variable} is ${JSON.stringify(value)}; expected ${expected}.`);
    this.name = 'InvalidEnvironmentVariableError';
  }
}

/** Settings both entry points share. */
export interface CommonEnv {
  /** CloudWatch metrics namespace (`POWERTOOLS_METRICS_NAMESPACE`), default `kfek`. */
  readonly metricsNamespace: string;
  /** Powertools service name (`POWERTOOLS_SERVICE_NAME`), default `transform`. */
  readonly serviceName: string;
  /**
   * True when an endpoint override (`AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`) is set: local emulators such as
   * moto serve S3 only with path-style addressing.
   */
  readonly s3ForcePathStyle: boolean;
  /**
   * The regions `cloudwatch.region` may name (`SOURCE_REGIONS`, comma-separated); undefined when unset (a
   * subscription filter's region is then taken as it is).
   */
  readonly sourceRegions?: readonly string[];
  /** The profile's routes (`KFEK_ROUTES`, core/contracts/transform-env.ts); empty when unset. */
  readonly routes: readonly TransformRoute[];
}

/** Settings of the Kinesis event source mapping handler. */
export interface TransformEnv extends CommonEnv {
  /** ARN of the events stream (`EVENTS_STREAM_ARN`). */
  readonly eventsStreamArn: string;
  /** Bucket for dead-letter objects of poison records (`DEAD_LETTER_BUCKET`). */
  readonly deadLetterBucket: string;
  /** Key prefix of dead-letter objects, always ending in `/` (`DEAD_LETTER_PREFIX`), default `dead-letter/transform/`. */
  readonly deadLetterPrefix: string;
  /**
   * Write KPL aggregated records (`EVENTS_AGGREGATION`: `true` or `false`), default true; config
   * `delivery.aggregation`.
   */
  readonly aggregation: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

function optional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function required(env: Env, name: string): string {
  const value = optional(env, name);
  if (value === undefined) throw new MissingEnvironmentVariableError(name);
  return value;
}

/** Reads the settings both entry points share. */
export function readCommonEnv(env: Env = process.env): CommonEnv {
  const regions = optional(env, TransformEnvVar.SourceRegions)
    ?.split(',')
    .map((r) => r.trim());
  if (regions?.some((r) => !REGION.test(r)) === true) {
    throw new InvalidEnvironmentVariableError(
      TransformEnvVar.SourceRegions,
      regions.join(','),
      'AWS regions separated by commas, such as eu-west-1,eu-central-1',
    );
  }
  return {
    ...(regions === undefined ? {} : { sourceRegions: regions }),
    // Checked as synth checks them; a bad value fails the container's start with RoutesEnvError naming each problem.
    routes: parseRoutes(optional(env, TransformEnvVar.Routes)),
    metricsNamespace: optional(env, TransformEnvVar.MetricsNamespace) ?? DEFAULT_METRICS_NAMESPACE,
    serviceName: optional(env, TransformEnvVar.ServiceName) ?? TransformServiceName.kinesis,
    s3ForcePathStyle:
      optional(env, 'AWS_ENDPOINT_URL_S3') !== undefined || optional(env, 'AWS_ENDPOINT_URL') !== undefined,
  };
}

const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;
const STREAM_ARN = /^arn:aws[a-z-]*:kinesis:[a-z0-9-]+:\d{12}:stream\/[A-Za-z0-9_.-]{1,128}$/;
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Reads and validates the Kinesis handler's settings. */
export function readTransformEnv(env: Env = process.env): TransformEnv {
  const eventsStreamArn = required(env, TransformEnvVar.EventsStreamArn);
  if (!STREAM_ARN.test(eventsStreamArn)) {
    throw new InvalidEnvironmentVariableError(
      TransformEnvVar.EventsStreamArn,
      eventsStreamArn,
      'a Kinesis stream ARN such as arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events',
    );
  }
  const deadLetterBucket = required(env, TransformEnvVar.DeadLetterBucket);
  if (!BUCKET_NAME.test(deadLetterBucket)) {
    throw new InvalidEnvironmentVariableError(
      TransformEnvVar.DeadLetterBucket,
      deadLetterBucket,
      'an S3 bucket name (not an ARN)',
    );
  }
  const prefix = optional(env, TransformEnvVar.DeadLetterPrefix) ?? DEFAULT_DEAD_LETTER_PREFIX;
  const aggregation = optional(env, TransformEnvVar.EventsAggregation) ?? String(DEFAULT_EVENTS_AGGREGATION);
  if (aggregation !== 'true' && aggregation !== 'false') {
    throw new InvalidEnvironmentVariableError(
      TransformEnvVar.EventsAggregation,
      aggregation,
      '"true" or "false"',
    );
  }
  return {
    ...readCommonEnv(env),
    eventsStreamArn,
    deadLetterBucket,
    deadLetterPrefix: prefix.endsWith('/') ? prefix : `${prefix}/`,
    aggregation: aggregation === 'true',
  };
}
