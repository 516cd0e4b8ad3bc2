/**
 * The AWS side of `kfek backfill` that is its own: DescribeStreamSummary of the raw stream (its clients are the run's,
 * cli/context.ts). FilterLogEvents and the other Logs calls are core/logs/aws.ts',
 * PutRecords core/kinesis'. Clients take the SDK's endpoint variables, so the same code runs against moto.
 */
import { DescribeStreamSummaryCommand, type KinesisClient } from '@aws-sdk/client-kinesis';
import { translateAwsError } from '../../core/aws/retry';
import { CliError } from '../errors';
import { streamParam } from '../../core/kinesis/aws';
import type { StreamInfoPort } from './ports';

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
