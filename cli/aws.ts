/**
 * The CloudWatch Logs client the CLI uses, and the translation of SDK errors into the CLI's typed errors.
 */
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { translateAwsError } from '../core/aws/retry';

export interface AwsTarget {
  /**
   * Endpoint override, e.g. `http://127.0.0.1:5000` for moto.
   * @default - `AWS_ENDPOINT_URL_CLOUDWATCH_LOGS` / `AWS_ENDPOINT_URL` if set (the SDK reads them), else AWS
   */
  readonly endpoint?: string;
  /** @default - the SDK's chain (AWS_REGION, profile); `us-east-1` when only an endpoint override is set */
  readonly region?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where a command's AWS clients go: `--endpoint` or `AWS_ENDPOINT_URL`, and `--region`, `AWS_REGION`,
 * `AWS_DEFAULT_REGION`, or us-east-1 when an endpoint override is set (any region works against a local emulator).
 * An empty variable is an unset one (the SDK would throw "Region is missing" from a client's constructor).
 */
export function resolveAwsTarget(
  given: { readonly endpoint?: string; readonly region?: string },
  env: Env,
): { readonly endpoint?: string; readonly region?: string } {
  const fromEnv = (name: string): string | undefined => env[name]?.trim() || undefined;
  const endpoint = given.endpoint ?? fromEnv('AWS_ENDPOINT_URL');
  const region =
    given.region ??
    fromEnv('AWS_REGION') ??
    fromEnv('AWS_DEFAULT_REGION') ??
    (endpoint !== undefined ? 'us-east-1' : undefined);
  return { ...(endpoint !== undefined ? { endpoint } : {}), ...(region !== undefined ? { region } : {}) };
}

/** One client per command. Retries are ours ({@link withRetries}), so the SDK makes a single attempt per call. */
export function createLogsClient(target: AwsTarget, env: Env): CloudWatchLogsClient {
  // An empty variable (`AWS_REGION=`) is no setting: the SDK would take it for a region and refuse it.
  const set = (value: string | undefined): string | undefined => (value?.trim() === '' ? undefined : value);
  const endpointFromEnv = set(env.AWS_ENDPOINT_URL_CLOUDWATCH_LOGS) ?? set(env.AWS_ENDPOINT_URL);
  const region =
    set(target.region) ??
    set(env.AWS_REGION) ??
    set(env.AWS_DEFAULT_REGION) ??
    (target.endpoint !== undefined || endpointFromEnv !== undefined ? 'us-east-1' : undefined);
  try {
    return new CloudWatchLogsClient({
      ...(region !== undefined ? { region } : {}),
      ...(target.endpoint !== undefined ? { endpoint: target.endpoint } : {}),
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler({ connectionTimeout: 5_000, requestTimeout: 60_000 }),
    });
  } catch (error) {
    // The SDK checks some settings as it builds the client ("Region is missing"), outside any call.
    throw translateAwsError(error, 'Creating the CloudWatch Logs client');
  }
}
