/** The CloudWatch Logs client the CLI uses, where aws-target.ts says. */
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { translateAwsError } from '../core/aws/retry';
import { type AwsTarget, resolveAwsTarget } from './aws-target';

export { type AwsTarget, resolveAwsTarget } from './aws-target';

type Env = Readonly<Record<string, string | undefined>>;

/** One client per command. Retries are ours ({@link withRetries}), so the SDK makes a single attempt per call. */
export function createLogsClient(target: AwsTarget, env: Env): CloudWatchLogsClient {
  const { region } = resolveAwsTarget(target, env, { service: 'CLOUDWATCH_LOGS' });
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
