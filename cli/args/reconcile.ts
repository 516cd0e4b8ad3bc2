/** The parser of `kfek reconcile`: its option values (options.ts) in, typed arguments out; pure (env and clock passed in). */
import { UsageError } from '../errors';
import type { OptionValues, RECONCILE_OPTIONS } from './options';
import { parseTimeWindow } from './time-window';
import type { ReconcileArgs } from './types';
import {
  optional,
  parseBucketName,
  parseLogGroupName,
  parseName,
  parseProfileName,
  parseRegion,
  parseStreamName,
  parseUrl,
  parseWait,
  quote,
} from './values';

type Env = Readonly<Record<string, string | undefined>>;

export function parseReconcile(
  values: OptionValues<typeof RECONCILE_OPTIONS>,
  { env, now }: { readonly env: Env; readonly now: Date },
): ReconcileArgs {
  const since = values.since;
  if (since === undefined || since.trim() === '') {
    throw new UsageError(
      'reconcile: --since is required: a duration before now (1h) or an ISO time where the window starts',
    );
  }
  const logGroups = [...new Set((values['log-group'] ?? []).map((g) => parseLogGroupName(g, '--log-group')))];
  const url = values.opensearch ?? env.KFEK_OPENSEARCH_URL;
  if (url === undefined || url === '') {
    throw new UsageError('reconcile: --opensearch URL is required (or set KFEK_OPENSEARCH_URL)');
  }
  const count = values.count;
  const isMode = (text: string | undefined): text is 'insights' | 'scan' =>
    text === 'insights' || text === 'scan';
  if (count !== undefined && !isMode(count)) {
    throw new UsageError(
      `reconcile: --count ${quote(count)} is neither insights (Logs Insights, on AWS) nor scan (FilterLogEvents)`,
    );
  }
  if (values.bucket !== undefined) parseBucketName('reconcile', values.bucket);
  const window = parseTimeWindow('reconcile', { since, until: values.until }, now);
  return {
    command: 'reconcile',
    logGroups,
    ...optional('profile', values.profile, (v) => parseProfileName(v, 'reconcile')),
    ...window,
    ...optional('lagInMillis', values.lag, (v) => parseWait(v, '--lag', { positive: false })),
    heal: values.heal,
    healTimeoutInMillis: parseWait(values['heal-timeout'], '--heal-timeout', { positive: true }),
    ...(isMode(count) ? { countMode: count } : {}),
    openSearchUrl: parseUrl(url, '--opensearch'),
    sigv4: values.sigv4,
    ...optional('service', values.service, (v) => v),
    ...optional('rawStream', values['raw-stream'], (v) => parseStreamName(v, '--raw-stream')),
    ...optional('bucket', values.bucket, (v) => v),
    ...optional('localDir', values['local-dir'], (v) => parseName(v, '--local-dir', 4096)),
    joinLookbackInMillis: parseWait(values['join-lookback'], '--join-lookback', { positive: false }),
    ...optional('endpoint', values.endpoint, (v) => parseUrl(v, '--endpoint')),
    ...optional('region', values.region, (v) => parseRegion(v, '--region')),
    json: values.json,
  };
}
