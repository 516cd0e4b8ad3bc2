/**
 * The doctor's one CloudWatch question (cli/doctor/stream-retention.ts): how far behind a stream's GetRecords
 * readers were over the last hour.
 */
import { CloudWatchClient, GetMetricStatisticsCommand } from '@aws-sdk/client-cloudwatch';
import type { DoctorPorts } from './facts';

export function iteratorAgePort(
  cloudwatch: CloudWatchClient,
  now: () => number = Date.now,
): DoctorPorts['iteratorAge'] {
  return async (streamName) => {
    const end = now();
    const answer = await cloudwatch.send(
      new GetMetricStatisticsCommand({
        Namespace: 'AWS/Kinesis',
        MetricName: 'GetRecords.IteratorAgeMilliseconds',
        Dimensions: [{ Name: 'StreamName', Value: streamName }],
        StartTime: new Date(end - 3_600_000),
        EndTime: new Date(end),
        Period: 300,
        Statistics: ['Maximum'],
      }),
    );
    const maxima = (answer.Datapoints ?? []).flatMap((d) => (d.Maximum === undefined ? [] : [d.Maximum]));
    return maxima.length === 0 ? undefined : Math.max(...maxima);
  };
}
