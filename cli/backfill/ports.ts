/**
 * What `kfek backfill` asks of the raw stream before it writes, as a port (aws-ports.ts implements it; tests use
 * fakes). CloudWatch Logs is core/logs/ports.ts' LogsPort; records go to Kinesis through core/kinesis.
 */

/** What backfill asks of the raw stream before it writes. */
export interface StreamInfoPort {
  /**
   * Open shards of the stream (DescribeStreamSummary), to say how much of its write limit a rate takes.
   * @throws a CliError naming the stream when it does not exist
   */
  openShards(stream: string): Promise<number>;
}
