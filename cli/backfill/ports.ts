/**
 * The I/O `kfek backfill` needs, as ports: CloudWatch Logs (the log group, its subscriptions, FilterLogEvents
 * pages), the raw stream's shards, and the local files (checkpoint, kept records). aws-ports.ts and files.ts
 * implement them; tests use in-memory fakes. Records go to Kinesis through core/kinesis' sender and port.
 */
import type { HistoricLogEvent } from './model';

export interface LogGroupInfo {
  readonly name: string;
  /** The account in the log group's ARN. */
  readonly owner: string;
  /**
   * `storedBytes` of DescribeLogGroups: the whole group over its retention, not the window.
   * @default - not reported
   */
  readonly storedBytes?: number;
  readonly createdAt?: Date;
}

export interface SubscriptionInfo {
  readonly filterName: string;
  readonly filterPattern: string;
  readonly destinationArn: string;
  readonly createdAt?: Date;
}

export interface FilterQuery {
  readonly logGroup: string;
  /** Inclusive, epoch millis. */
  readonly startTime: number;
  /** Inclusive, epoch millis (FilterLogEvents: "events with a timestamp later than this time are not returned"). */
  readonly endTime: number;
  /** @default - every event */
  readonly filterPattern?: string;
  /** @default 10000, the API's maximum */
  readonly limit?: number;
  readonly nextToken?: string;
}

export interface FilterPage {
  /** In the API's order: by timestamp, then ingestion time, then PutLogEvents request. */
  readonly events: readonly HistoricLogEvent[];
  /** More may follow (a page can be partly full or empty and still have one). */
  readonly nextToken?: string;
}

/** The CloudWatch Logs calls backfill makes; each retries throttling itself and throws the CLI's errors. */
export interface LogsPort {
  /** @throws UnknownLogGroupError when the group does not exist */
  describeGroup(name: string): Promise<LogGroupInfo>;
  subscriptions(logGroup: string): Promise<SubscriptionInfo[]>;
  /** One FilterLogEvents call. */
  filterPage(query: FilterQuery): Promise<FilterPage>;
}

/** What backfill asks of the raw stream before it writes. */
export interface StreamInfoPort {
  /**
   * Open shards of the stream (DescribeStreamSummary), to say how much of its write limit a rate takes.
   * @throws a CliError naming the stream when it does not exist
   */
  openShards(stream: string): Promise<number>;
}
