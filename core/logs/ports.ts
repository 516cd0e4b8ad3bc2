/**
 * The CloudWatch Logs calls kfek's tools make to read a log group back (its owner, its subscriptions,
 * FilterLogEvents pages), as a port: aws.ts implements it; tests use in-memory fakes.
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
