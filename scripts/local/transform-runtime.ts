/**
 * The transform as the local runner runs it: which shipped module each transport loads, and the environment the
 * Pipeline stack and the Lambda runtime give it in AWS.
 */
import * as path from 'node:path';
import type { Context } from 'aws-lambda';
import type { Transport } from '../../core/config';
import {
  DEFAULT_EVENTS_AGGREGATION,
  transformEnvironment,
  transformServiceName,
} from '../../core/contracts/transform-env';
import { localAwsEnvironment } from './aws-clients';
import { LocalRunError } from './errors';
import type { LocalResources } from './resources';
import type { LocalPipelineSpec } from './spec';

const TRANSFORM_DIR = path.join(__dirname, '..', '..', 'lambda', 'transform');

/**
 * The module Lambda loads for each transport: the Kinesis entry point (`handler.handler`) or the Pipes enrichment
 * (`pipes.handler`).
 */
export const TRANSFORM_HANDLER_MODULES: Readonly<Record<Transport, string>> = {
  lambda: path.join(TRANSFORM_DIR, 'handler'),
  pipes: path.join(TRANSFORM_DIR, 'pipes'),
};

/** A handler module's `handler`, as the Lambda runtime calls it. */
export type AnyHandler = (event: never, context: Context) => Promise<unknown>;

export interface LocalTransformEnvProps {
  readonly spec: LocalPipelineSpec;
  readonly resources: LocalResources;
  readonly awsEndpoint: string;
  /** @default - awsEndpoint */
  readonly transformKinesisEndpoint?: string;
  /** @default 'WARN' */
  readonly logLevel?: string;
}

/**
 * The transform's environment: its variables from the Pipeline stack (`transformEnvironment`, with the transport's
 * service name), the variables the Lambda runtime sets, moto's endpoint and dummy credentials.
 */
export function localTransformEnv(props: LocalTransformEnvProps): Record<string, string> {
  const { spec, resources } = props;
  return {
    ...localAwsEnvironment(spec.region, props.awsEndpoint),
    AWS_ENDPOINT_URL_KINESIS: props.transformKinesisEndpoint ?? props.awsEndpoint,
    AWS_LAMBDA_FUNCTION_NAME: spec.eventSource.functionName,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.eventSource.memorySizeInMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    ...transformEnvironment({
      serviceName: transformServiceName(spec.transport ?? 'lambda'),
      eventsStreamArn: resources.eventsStreamArn,
      deadLetterBucket: resources.deadLetterBucket,
      deadLetterPrefix: spec.deadLetterPrefix,
      aggregation: spec.delivery.aggregation ?? DEFAULT_EVENTS_AGGREGATION,
      routes: spec.routes,
    }),
    POWERTOOLS_LOG_LEVEL: props.logLevel ?? 'WARN',
    // Metrics in embedded metric format are log lines for CloudWatch; locally nobody reads them.
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
}

/**
 * Sets the environment and loads a handler module in this process. The handlers read their configuration and
 * build their SDK clients at module scope, so the environment must be in place first.
 */
export async function loadTransformHandler(
  modulePath: string,
  env: Readonly<Record<string, string>>,
): Promise<AnyHandler> {
  Object.assign(process.env, env);
  const mod = (await import(modulePath)) as { handler?: unknown };
  if (typeof mod.handler !== 'function') {
    throw new LocalRunError(`${modulePath} does not export a \`handler\` function`);
  }
  return mod.handler as AnyHandler;
}
