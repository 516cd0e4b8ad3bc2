/** Parsers of the commands that talk to CloudWatch Logs and OpenSearch data: send, verify, query. */
import { UsageError } from '../errors';
import type { OptionValues, QUERY_OPTIONS, SEND_OPTIONS, VERIFY_OPTIONS } from './options';
import type { CommonArgs, QueryArgs, SendArgs, VerifyArgs } from './types';
import {
  optional,
  parseCount,
  parseDuration,
  parseLogGroupName,
  parseLogStreamName,
  parseName,
  parseProfileName,
  parseRate,
  parseRegion,
  parseUrl,
  parseWait,
  quote,
} from './values';

export type Env = Readonly<Record<string, string | undefined>>;

function common(values: { endpoint?: string; region?: string; json: boolean }): CommonArgs {
  return {
    ...optional('endpoint', values.endpoint, (v) => parseUrl(v, '--endpoint')),
    ...optional('region', values.region, (v) => parseRegion(v, '--region')),
    json: values.json,
  };
}

export function parseSend(values: OptionValues<typeof SEND_OPTIONS>): SendArgs {
  const logGroupName = values['log-group'];
  if (logGroupName === undefined || logGroupName === '')
    throw new UsageError('send: --log-group is required');
  const logStreamName = values['log-stream'];
  return {
    command: 'send',
    ...common(values),
    logGroupName: parseLogGroupName(logGroupName, '--log-group'),
    ...optional('logStreamName', logStreamName, (v) => parseLogStreamName(v, '--log-stream')),
    count: parseCount(values.count, '--count', 1),
    ...optional('ratePerSecond', values.rate, parseRate),
    ...optional('runId', values['run-id'], (v) => v),
    ...optional('seed', values.seed, (v) => parseCount(v, '--seed', 0)),
  };
}

export function parseVerify(values: OptionValues<typeof VERIFY_OPTIONS>, env: Env): VerifyArgs {
  const runId = values['run-id'];
  if (runId === undefined || runId === '') throw new UsageError('verify: --run-id is required');
  const url = values.opensearch ?? env.KFEK_OPENSEARCH_URL;
  if (url === undefined || url === '') {
    throw new UsageError('verify: --opensearch URL is required (or set KFEK_OPENSEARCH_URL)');
  }
  const expected = values.expect === undefined ? undefined : parseCount(values.expect, '--expect', 0);
  return {
    command: 'verify',
    ...optional('region', values.region, (v) => parseRegion(v, '--region')),
    json: values.json,
    runId,
    openSearchUrl: parseUrl(url, '--opensearch'),
    indexPattern: values.index,
    ...(expected !== undefined ? { expected } : {}),
    // Without --expect there is nothing to wait for: one search. With it, wait up to 5 minutes by default.
    timeoutInMillis:
      values.timeout !== undefined
        ? parseWait(values.timeout, '--timeout', { positive: false })
        : expected !== undefined
          ? 300_000
          : 0,
    // 0 would search again at once, for as long as --timeout lasts.
    pollIntervalInMillis: parseWait(values.interval, '--interval', { positive: true }),
    ...optional('ingestField', values['ingest-field'], (v) => parseName(v, '--ingest-field')),
    sigv4: values.sigv4,
    ...optional('service', values.service, (v) => v),
  };
}

export function parseQuery(values: OptionValues<typeof QUERY_OPTIONS>): QueryArgs {
  if (!values.list && (values.name === undefined || values.name === '')) {
    throw new UsageError('query: --name is required (or --list to see the built-in queries)');
  }
  const logGroupNames = (values['log-group'] ?? []).map((name) => parseLogGroupName(name, '--log-group'));
  if (values.profile !== undefined && logGroupNames.length > 0) {
    throw new UsageError(
      'query: --profile chooses the log groups when no --log-group is given; pass one or the other',
    );
  }
  return {
    command: 'query',
    ...common(values),
    // A saved query's name: 1-255 characters (DescribeQueryDefinitions' queryDefinitionNamePrefix).
    ...optional('name', values.name, (v) => parseName(v, '--name', 255)),
    list: values.list,
    logGroupNames,
    ...optional('profile', values.profile, (v) => parseProfileName(v, 'query')),
    // How far back: no timer waits it, but the query's start must not fall before 1970 (checked when it runs).
    sinceInMillis: parseLookback(values.since),
    timeoutInMillis: parseWait(values.timeout, '--timeout', { positive: true }),
  };
}

/** Query's --since: how far back, longer than 0 (a query over no time at all is a typing mistake). */
function parseLookback(text: string): number {
  const millis = parseDuration(text, '--since');
  if (millis <= 0) {
    throw new UsageError(`--since ${quote(text)} must be longer than 0: how far back to query, such as 1h`);
  }
  return millis;
}
