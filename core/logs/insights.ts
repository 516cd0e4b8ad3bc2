/**
 * One Logs Insights query run to its end: StartQuery, then GetQueryResults until the query ends (stopped when it runs
 * past the timeout), retried and translated as every AWS call (core/aws). `kfek query` and the reconcile's counts
 * per minute (command and scheduled function) run their queries through it.
 */
import {
  type CloudWatchLogsClient,
  GetQueryResultsCommand,
  type GetQueryResultsCommandOutput,
  StartQueryCommand,
  StopQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { QueryFailedError } from '../aws/errors';
import { type RetryOptions, withRetries } from '../aws/retry';

export interface QueryStatistics {
  readonly recordsMatched?: number;
  readonly recordsScanned?: number;
  readonly bytesScanned?: number;
}

/** What a query answered: its columns in the order Logs Insights returned them (no `@ptr`), rows, statistics. */
export interface InsightsResult {
  readonly columns: readonly string[];
  readonly rows: readonly Readonly<Record<string, string>>[];
  readonly statistics?: QueryStatistics;
}

/** One Logs Insights query over explicit log groups and a time range (epoch millis). */
export interface InsightsRequest {
  readonly logGroupNames: readonly string[];
  readonly queryString: string;
  readonly startTime: number;
  readonly endTime: number;
}

export interface InsightsOptions {
  readonly timeoutInMillis: number;
  readonly pollIntervalInMillis: number;
  readonly retry: RetryOptions;
  readonly now: () => number;
  readonly sleep: (millis: number) => Promise<void>;
  /** For messages about connection failures. */
  readonly endpoint?: string;
  /** Called once per API call (StartQuery, each GetQueryResults), for callers that count requests. */
  readonly onCall?: () => void;
}

/**
 * StartQuery, then GetQueryResults until the query ends (stopped when it runs past the timeout): the rows, without
 * the internal `@ptr`, with their columns in the order Logs Insights returned them. `kfek query` and `kfek reconcile`
 * (its counts per minute) run their queries through it.
 */
export async function runInsightsQuery(
  client: CloudWatchLogsClient,
  request: InsightsRequest,
  options: InsightsOptions,
): Promise<InsightsResult> {
  const { logGroupNames, queryString } = request;
  const { now, retry } = options;
  const interval = options.pollIntervalInMillis;
  const call = options.onCall ?? ((): void => undefined);
  // StartQuery names at most one log group in "does not exist" errors; report the one the user gave if single.
  const context = {
    logGroupName: logGroupNames.length === 1 ? logGroupNames[0] : logGroupNames.join(', '),
    endpoint: options.endpoint,
  };
  const started = await withRetries(
    'StartQuery',
    () => {
      call();
      return client.send(
        new StartQueryCommand({
          logGroupNames: [...logGroupNames],
          queryString,
          // StartQuery takes epoch seconds.
          startTime: Math.floor(request.startTime / 1000),
          endTime: Math.ceil(request.endTime / 1000),
        }),
      );
    },
    context,
    retry,
  );
  const queryId = started.queryId;
  if (queryId === undefined) throw new QueryFailedError('Unknown', 'StartQuery returned no query id; retry.');

  const deadline = now() + options.timeoutInMillis;
  let answer: GetQueryResultsCommandOutput;
  for (;;) {
    answer = await withRetries(
      'GetQueryResults',
      () => {
        call();
        return client.send(new GetQueryResultsCommand({ queryId }));
      },
      context,
      retry,
    );
    const status = answer.status ?? 'Unknown';
    if (status === 'Complete') break;
    if (status === 'Failed' || status === 'Cancelled' || status === 'Timeout') {
      throw new QueryFailedError(
        status,
        status === 'Timeout'
          ? 'Logs Insights stops queries after 60 minutes; narrow --since.'
          : 'check the query text and the log groups, then retry.',
      );
    }
    if (now() + interval > deadline) {
      // Stop it so it does not keep counting against the concurrent-query quota.
      await client.send(new StopQueryCommand({ queryId })).catch(() => undefined);
      throw new QueryFailedError(
        status,
        `still not complete after ${Math.round(options.timeoutInMillis / 1000)} s; raise --timeout or narrow --since.`,
      );
    }
    await options.sleep(interval);
  }

  const columns: string[] = [];
  const rows = (answer.results ?? []).map((fields) => {
    const row: Record<string, string> = {};
    for (const { field, value } of fields) {
      if (field === undefined || field === '@ptr') continue;
      if (!columns.includes(field)) columns.push(field);
      row[field] = value ?? '';
    }
    return row;
  });
  return { columns, rows, ...(answer.statistics !== undefined ? { statistics: answer.statistics } : {}) };
}
