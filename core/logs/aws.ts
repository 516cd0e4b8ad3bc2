/**
 * The SDK side of {@link LogsPort}: DescribeLogGroups, DescribeSubscriptionFilters and FilterLogEvents, each retried
 * with backoff while throttled and translated into the operator's errors (core/aws).
 */
import {
  type CloudWatchLogsClient,
  DescribeLogGroupsCommand,
  DescribeSubscriptionFiltersCommand,
  FilterLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { UnknownLogGroupError } from '../aws/errors';
import { type RetryOptions, withRetries } from '../aws/retry';
import type { HistoricLogEvent } from './model';
import type { LogGroupInfo, LogsPort, SubscriptionInfo } from './ports';

/** Attempts per CloudWatch Logs call: FilterLogEvents' quota is shared by the whole account, so be patient. */
const LOGS_ATTEMPTS = 10;

export function logsPort(
  client: CloudWatchLogsClient,
  options: { readonly endpoint?: string; readonly retry?: RetryOptions } = {},
): LogsPort {
  const call = <T>(operation: string, logGroupName: string, send: () => Promise<T>): Promise<T> =>
    withRetries(
      operation,
      send,
      { logGroupName, ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}) },
      { maxAttempts: LOGS_ATTEMPTS, ...options.retry },
    );
  return {
    async describeGroup(name) {
      let nextToken: string | undefined;
      do {
        const out = await call(`DescribeLogGroups of ${name}`, name, () =>
          client.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: name, nextToken })),
        );
        const group = (out.logGroups ?? []).find((g) => g.logGroupName === name);
        if (group !== undefined) return groupInfo(name, group);
        nextToken = out.nextToken;
      } while (nextToken !== undefined);
      throw new UnknownLogGroupError(name);
    },
    async subscriptions(logGroup) {
      const found: SubscriptionInfo[] = [];
      let nextToken: string | undefined;
      do {
        const out = await call(`DescribeSubscriptionFilters of ${logGroup}`, logGroup, () =>
          client.send(new DescribeSubscriptionFiltersCommand({ logGroupName: logGroup, nextToken })),
        );
        for (const f of out.subscriptionFilters ?? []) {
          if (f.filterName === undefined || f.destinationArn === undefined) continue;
          found.push({
            filterName: f.filterName,
            filterPattern: f.filterPattern ?? '',
            destinationArn: f.destinationArn,
            ...(f.creationTime !== undefined ? { createdAt: new Date(f.creationTime) } : {}),
          });
        }
        nextToken = out.nextToken;
      } while (nextToken !== undefined);
      return found;
    },
    async filterPage(query) {
      const out = await call(`FilterLogEvents on ${query.logGroup}`, query.logGroup, () =>
        client.send(
          new FilterLogEventsCommand({
            logGroupName: query.logGroup,
            startTime: query.startTime,
            endTime: query.endTime,
            ...(query.filterPattern !== undefined && query.filterPattern !== ''
              ? { filterPattern: query.filterPattern }
              : {}),
            limit: query.limit ?? 10_000,
            nextToken: query.nextToken,
            // Ignored by AWS since 2019 (its answers always interleave the log streams by time); moto still reads
            // it, and without it answers stream after stream.
            interleaved: true,
          }),
        ),
      );
      const events: HistoricLogEvent[] = [];
      for (const e of out.events ?? []) {
        if (e.eventId === undefined || e.timestamp === undefined || e.logStreamName === undefined) continue;
        events.push({
          id: e.eventId,
          timestamp: e.timestamp,
          message: e.message ?? '',
          logStream: e.logStreamName,
          ...(e.ingestionTime !== undefined ? { ingestionTime: e.ingestionTime } : {}),
        });
      }
      return { events, ...(out.nextToken !== undefined ? { nextToken: out.nextToken } : {}) };
    },
  };
}

function groupInfo(
  name: string,
  group: { arn?: string; logGroupArn?: string; storedBytes?: number; creationTime?: number },
): LogGroupInfo {
  // arn:aws:logs:<region>:<account>:log-group:<name>[:*]
  const owner = (group.logGroupArn ?? group.arn ?? '').split(':')[4] ?? '';
  return {
    name,
    owner,
    ...(group.storedBytes !== undefined ? { storedBytes: group.storedBytes } : {}),
    ...(group.creationTime !== undefined ? { createdAt: new Date(group.creationTime) } : {}),
  };
}
