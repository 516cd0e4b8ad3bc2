/**
 * The saved CloudWatch Logs Insights queries, as data.
 *
 * One source for both consumers: the monitoring construct turns each entry into an `AWS::Logs::QueryDefinition`
 * (via `logs.QueryString`), and `kfek query --name` runs the same text with StartQuery. Nothing here imports CDK,
 * so the CLI starts without loading aws-cdk-lib; `renderInsightsQuery` mirrors `logs.QueryString#toString` and a
 * test keeps the two equal.
 */

/** The parts of one Insights query, in the shape of `logs.QueryStringProps` (a subset of it). */
export interface InsightsQueryParts {
  readonly fields?: readonly string[];
  readonly filterStatements?: readonly string[];
  /** Each becomes one `stats` command (without the leading `stats`). */
  readonly statsStatements?: readonly string[];
  readonly sort?: string;
  readonly limit?: number;
}

export interface SavedInsightsQuery {
  /** Short name for `kfek query --name`. */
  readonly name: string;
  /** What it answers, shown by `kfek query --list` and in docs. */
  readonly description: string;
  readonly parts: InsightsQueryParts;
}

/** Folder under which the definitions appear in the console's saved-queries list (`/` makes folders). */
export const SAVED_QUERY_FOLDER = 'kfek';

export const SAVED_QUERIES: readonly SavedInsightsQuery[] = [
  {
    name: 'errors-by-15m',
    description: 'ERROR-level JSON log events per 15-minute bin (apps that log JSON with a `level` field).',
    parts: {
      filterStatements: ['level == "ERROR"'],
      statsStatements: ['count(*) as errors by bin(15m)'],
    },
  },
  {
    name: 'latest-errors',
    description: 'The 100 most recent ERROR-level JSON log events with their logger and message.',
    parts: {
      fields: ['@timestamp', '@log', '@logStream', 'logger', 'message'],
      filterStatements: ['level == "ERROR"'],
      sort: '@timestamp desc',
      limit: 100,
    },
  },
  {
    // Follows AWS's sample query for over-provisioned memory: REPORT lines (text log format) carry the
    // discovered fields @duration, @initDuration (cold starts only), @memorySize and @maxMemoryUsed (bytes).
    name: 'lambda-report-stats',
    description:
      'Lambda REPORT lines: invocations, p50/p95/max duration, cold starts and memory headroom (text log format).',
    parts: {
      filterStatements: ['@type = "REPORT"'],
      statsStatements: [
        [
          'count(*) as invocations',
          'pct(@duration, 50) as p50DurationMs',
          'pct(@duration, 95) as p95DurationMs',
          'max(@duration) as maxDurationMs',
          'count(@initDuration) as coldStarts',
          'max(@memorySize / 1000 / 1000) as memorySizeMB',
          'max(@maxMemoryUsed / 1000 / 1000) as maxMemoryUsedMB',
          'memorySizeMB - maxMemoryUsedMB as memoryHeadroomMB',
        ].join(', '),
      ],
    },
  },
];

/** The definition name in CloudWatch (`kfek/errors-by-15m`). */
export function savedQueryDefinitionName(
  query: SavedInsightsQuery,
  folder: string = SAVED_QUERY_FOLDER,
): string {
  return `${folder}/${query.name}`;
}

/** Renders the query text exactly as `new logs.QueryString(parts).toString()` does. */
export function renderInsightsQuery(parts: InsightsQueryParts): string {
  const lines: string[] = [];
  if (parts.fields !== undefined && parts.fields.length > 0) lines.push(`fields ${parts.fields.join(', ')}`);
  for (const filter of parts.filterStatements ?? []) lines.push(`filter ${filter}`);
  for (const stats of parts.statsStatements ?? []) lines.push(`stats ${stats}`);
  if (parts.sort !== undefined) lines.push(`sort ${parts.sort}`);
  if (parts.limit !== undefined) lines.push(`limit ${parts.limit}`);
  return lines.join('\n| ');
}

/** Finds a built-in query by short name or by its `kfek/...` definition name. */
export function findSavedQuery(name: string): SavedInsightsQuery | undefined {
  return SAVED_QUERIES.find((query) => query.name === name || savedQueryDefinitionName(query) === name);
}
