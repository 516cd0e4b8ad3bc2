/**
 * `kfek query`: finds a saved Logs Insights query (a built-in, or a saved definition) and runs it to its end
 * (core/logs/insights.ts).
 */
import { type CloudWatchLogsClient, DescribeQueryDefinitionsCommand } from '@aws-sdk/client-cloudwatch-logs';
import {
  SAVED_QUERIES,
  findSavedQuery,
  renderInsightsQuery,
  savedQueryDefinitionName,
} from '../core/contracts/saved-queries';
import { type RetryOptions, withRetries } from '../core/aws/retry';
import { sleep as realSleep } from '../core/clock';
import { type QueryStatistics, runInsightsQuery } from '../core/logs/insights';

export type { QueryStatistics } from '../core/logs/insights';
import { UnknownQueryError, UsageError } from './errors';

export interface ResolvedQuery {
  /** The definition name (`kfek/errors-by-15m`). */
  readonly name: string;
  readonly queryString: string;
  /** Log groups saved with the definition (used when none are given on the command line). */
  readonly logGroupNames: readonly string[];
  /** One of kfek's own queries ({@link SAVED_QUERIES}), resolved without an API call. */
  readonly builtIn: boolean;
}

/**
 * A built-in query by short or full name (no API call: works offline and against emulators without Logs
 * Insights), otherwise a saved definition with exactly that name (DescribeQueryDefinitions).
 */
export async function resolveQuery(
  client: CloudWatchLogsClient,
  name: string,
  retry: RetryOptions = {},
): Promise<ResolvedQuery> {
  const builtIn = findSavedQuery(name);
  if (builtIn !== undefined) {
    return {
      name: savedQueryDefinitionName(builtIn),
      queryString: renderInsightsQuery(builtIn.parts),
      logGroupNames: [],
      builtIn: true,
    };
  }
  const answer = await withRetries(
    'DescribeQueryDefinitions',
    () =>
      client.send(new DescribeQueryDefinitionsCommand({ queryDefinitionNamePrefix: name, maxResults: 1000 })),
    {},
    retry,
  );
  const match = answer.queryDefinitions?.find((definition) => definition.name === name);
  if (match?.queryString === undefined) {
    throw new UnknownQueryError(
      name,
      SAVED_QUERIES.map((query) => query.name),
    );
  }
  return { name, queryString: match.queryString, logGroupNames: match.logGroupNames ?? [], builtIn: false };
}

export interface QueryOptions {
  readonly name: string;
  /** @default - the log groups saved with the definition; for a built-in, {@link profileLogGroupNames} */
  readonly logGroupNames: readonly string[];
  /**
   * The log groups of the config profile, asked only for a built-in query run without `--log-group`: the
   * Monitoring stack saves the built-ins with exactly these groups.
   * @default - none: a built-in query then needs `--log-group`
   */
  readonly profileLogGroupNames?: () => readonly string[];
  /** How far back the query looks. */
  readonly sinceInMillis: number;
  /** @default 120000 */
  readonly timeoutInMillis?: number;
  /** @default 1000 */
  readonly pollIntervalInMillis?: number;
  /** For messages about connection failures. */
  readonly endpoint?: string;
  readonly retry?: RetryOptions;
  /** Injected by tests. @default Date.now */
  readonly now?: () => number;
  /** Injected by tests. @default setTimeout */
  readonly sleep?: (millis: number) => Promise<void>;
}

export interface QueryResult {
  readonly name: string;
  readonly queryString: string;
  readonly logGroupNames: readonly string[];
  /** Result columns in the order Logs Insights returned them, without the internal `@ptr`. */
  readonly columns: readonly string[];
  readonly rows: readonly Readonly<Record<string, string>>[];
  readonly statistics?: QueryStatistics;
}

/** Runs the query and waits for its results. */
export async function runQuery(client: CloudWatchLogsClient, options: QueryOptions): Promise<QueryResult> {
  const now = options.now ?? Date.now;
  const pause = options.sleep ?? realSleep;
  const retry: RetryOptions = { sleep: pause, ...options.retry };
  const timeout = options.timeoutInMillis ?? 120_000;
  const interval = options.pollIntervalInMillis ?? 1000;
  if (!(options.sinceInMillis > 0)) throw new UsageError(`--since must be a positive duration such as 1h`);
  if (options.sinceInMillis > now()) {
    throw new UsageError(
      `--since reaches back before 1970; Logs Insights reads from the log groups' creation on`,
    );
  }

  const query = await resolveQuery(client, options.name, retry);
  const logGroupNames =
    options.logGroupNames.length > 0
      ? options.logGroupNames
      : query.builtIn
        ? (options.profileLogGroupNames?.() ?? [])
        : query.logGroupNames;
  if (logGroupNames.length === 0) {
    throw new UsageError(
      query.builtIn
        ? `--log-group is required: the profile lists no log groups under sources.logGroups (the account-level ` +
            `policy's groups cannot be enumerated)`
        : `--log-group is required: ${query.name} has no log groups saved with it`,
    );
  }
  const endTime = now();
  const startTime = endTime - options.sinceInMillis;
  const answer = await runInsightsQuery(
    client,
    { logGroupNames, queryString: query.queryString, startTime, endTime },
    {
      timeoutInMillis: timeout,
      pollIntervalInMillis: interval,
      retry,
      now,
      sleep: pause,
      ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
    },
  );
  return { name: query.name, queryString: query.queryString, logGroupNames, ...answer };
}
