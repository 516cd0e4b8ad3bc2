/**
 * The AWS side of `kfek backfill`: its clients (CloudWatch Logs through the CLI's client, cli/aws.ts; Kinesis), and
 * DescribeStreamSummary of the raw stream. FilterLogEvents and the other Logs calls are core/logs/aws.ts',
 * PutRecords core/kinesis'. Clients take the SDK's endpoint variables, so the same code runs against moto.
 */
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DescribeStreamSummaryCommand, type KinesisClient } from '@aws-sdk/client-kinesis';
import { translateAwsError } from '../../core/aws/retry';
import { createLogsClient } from '../aws';
import { CliError } from '../errors';
import { createKinesisClient, streamParam } from '../../core/kinesis/aws';
import type { StreamInfoPort } from './ports';

export interface BackfillClients {
  readonly logs: CloudWatchLogsClient;
  readonly kinesis: KinesisClient;
  destroy(): void;
}

/** One CloudWatch Logs and one Kinesis client, both at `endpoint` when given (moto), in `region`. */
export function createBackfillClients(
  target: { readonly region?: string; readonly endpoint?: string },
  env: Readonly<Record<string, string | undefined>>,
): BackfillClients {
  const logs = createLogsClient(target, env);
  const kinesis = createKinesisClient(target);
  return {
    logs,
    kinesis,
    destroy: () => {
      logs.destroy();
      kinesis.destroy();
    },
  };
}

export function streamInfoPort(kinesis: KinesisClient, endpoint?: string): StreamInfoPort {
  return {
    async openShards(stream) {
      try {
        const out = await kinesis.send(new DescribeStreamSummaryCommand(streamParam(stream)));
        return out.StreamDescriptionSummary?.OpenShardCount ?? 0;
      } catch (error) {
        if ((error as Error).name === 'ResourceNotFoundException') {
          throw new CliError(
            `backfill: the raw stream ${stream} does not exist in this account and region: deploy the profile's ` +
              'Search stack, check --region (or AWS_REGION), or name the stream with --raw-stream',
            { cause: error },
          );
        }
        throw translateAwsError(error, `DescribeStreamSummary of ${stream}`, {
          ...(endpoint !== undefined ? { endpoint } : {}),
        });
      }
    },
  };
}
