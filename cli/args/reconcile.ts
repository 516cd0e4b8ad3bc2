/** The parser of `kfek reconcile`: its option table (options.ts) in, typed arguments out; pure (env passed in). */
import { UsageError } from '../errors';
import { parseOptions, RECONCILE_OPTIONS } from './options';
import type { HelpArgs, ReconcileArgs } from './types';
import {
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

/** S3 bucket names (with the legacy ones): up to 255 of letters, digits, `.`, `_`, `-`. */
const BUCKET = /^[A-Za-z0-9._-]{3,255}$/;

export function parseReconcile(args: readonly string[], env: Env): ReconcileArgs | HelpArgs {
  const values = parseOptions(args, RECONCILE_OPTIONS);
  if (values.help) return { command: 'help', topic: 'reconcile' };
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
  if (values.bucket !== undefined && !BUCKET.test(values.bucket)) {
    throw new UsageError(
      `reconcile: --bucket ${quote(values.bucket)} is not a bucket name: give the name alone, without s3:// or a prefix`,
    );
  }
  const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
    (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
  return {
    command: 'reconcile',
    logGroups,
    ...optional(
      'profile',
      values.profile === undefined ? undefined : parseProfileName(values.profile, 'reconcile'),
    ),
    sinceText: since,
    ...optional('untilText', values.until),
    ...optional(
      'lagInMillis',
      values.lag === undefined ? undefined : parseWait(values.lag, '--lag', { positive: false }),
    ),
    heal: values.heal,
    healTimeoutInMillis: parseWait(values['heal-timeout'], '--heal-timeout', { positive: true }),
    ...optional('countMode', isMode(count) ? count : undefined),
    openSearchUrl: parseUrl(url, '--opensearch'),
    sigv4: values.sigv4,
    ...optional(
      'rawStream',
      values['raw-stream'] === undefined ? undefined : parseStreamName(values['raw-stream'], '--raw-stream'),
    ),
    ...optional('bucket', values.bucket),
    ...optional(
      'localDir',
      values['local-dir'] === undefined ? undefined : parseName(values['local-dir'], '--local-dir', 4096),
    ),
    joinLookbackInMillis: parseWait(values['join-lookback'], '--join-lookback', { positive: false }),
    ...optional(
      'endpoint',
      values.endpoint === undefined ? undefined : parseUrl(values.endpoint, '--endpoint'),
    ),
    ...optional('region', values.region === undefined ? undefined : parseRegion(values.region, '--region')),
    json: values.json,
  };
}
