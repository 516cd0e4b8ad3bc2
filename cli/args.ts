/**
 * Command-line parsing: argv in, a typed command out. Pure (the environment is passed in), so every rule is
 * unit-testable.
 */
import { parseArgs } from 'node:util';
import { UsageError } from './errors';

export interface CommonArgs {
  readonly endpoint?: string;
  readonly region?: string;
  /** Print machine-readable JSON on stdout instead of text. */
  readonly json: boolean;
}

export interface SendArgs extends CommonArgs {
  readonly command: 'send';
  readonly logGroupName: string;
  readonly logStreamName?: string;
  readonly count: number;
  readonly ratePerSecond?: number;
  readonly runId?: string;
  readonly seed?: number;
}

export interface VerifyArgs extends CommonArgs {
  readonly command: 'verify';
  readonly runId: string;
  readonly openSearchUrl: string;
  readonly indexPattern: string;
  readonly expected?: number;
  readonly timeoutInMillis: number;
  readonly pollIntervalInMillis: number;
  readonly ingestField?: string;
  /** Sign requests with SigV4 (Amazon OpenSearch Service with IAM access). */
  readonly sigv4: boolean;
}

export interface QueryArgs extends CommonArgs {
  readonly command: 'query';
  readonly name?: string;
  readonly list: boolean;
  readonly logGroupNames: readonly string[];
  /**
   * cdk.json profile whose `sources.logGroups` a built-in query runs on when no `--log-group` is given.
   * @default - cdk.json's default profile (`sandbox`), as `cdk deploy`
   */
  readonly profile?: string;
  readonly sinceInMillis: number;
  readonly timeoutInMillis: number;
}

export interface ProxyArgs {
  readonly command: 'proxy';
  /** The domain endpoint as given (a host name or an http(s) URL). */
  readonly endpoint: string;
  readonly region?: string;
  /** Port on 127.0.0.1. */
  readonly port: number;
  /**
   * Most request-body bytes buffered by all requests together (`--max-buffered-mib`).
   * @default - the proxy's default, 256 MiB
   */
  readonly maxBufferedBytes?: number;
  /**
   * Most requests with a body in flight at once (`--max-bodies`).
   * @default - the proxy's default, 8
   */
  readonly maxConcurrentBodies?: number;
  /**
   * Time a client has to send a request's headers (`--headers-timeout`).
   * @default - the proxy's default, 20 s
   */
  readonly headersTimeoutInMillis?: number;
  /**
   * Time a client has to send a whole request (`--request-timeout`).
   * @default - the proxy's default, 120 s
   */
  readonly requestTimeoutInMillis?: number;
  /**
   * Time the domain may stay silent before a 504 (`--upstream-timeout`).
   * @default - the proxy's default, 300 s
   */
  readonly upstreamTimeoutInMillis?: number;
}

export interface DoctorArgs {
  readonly command: 'doctor';
  /** The cdk.json profile to check. */
  readonly profile: string;
  readonly region?: string;
  readonly json: boolean;
  /** Do not run `cdk synth`: only the checks that need no templates run. */
  readonly skipSynth: boolean;
  /** Read this already synthesized assembly instead of running `cdk synth`. */
  readonly cdkOut?: string;
  readonly synthTimeoutInMillis: number;
}

export interface HelpArgs {
  readonly command: 'help';
}

export type CliArgs = SendArgs | VerifyArgs | QueryArgs | ProxyArgs | DoctorArgs | HelpArgs;

export const USAGE = `kfek - send test logs through the pipeline, verify they arrived, run saved Logs Insights queries,
open OpenSearch Dashboards through a local signing proxy, check an account before and after cdk deploy

Usage:
  kfek send   --log-group G [--count N] [--rate R/s] [--run-id ID] [--log-stream S] [--seed N]
  kfek verify --run-id ID --opensearch URL [--index PATTERN] [--expect N] [--timeout S] [--interval S]
              [--ingest-field F] [--sigv4]
  kfek query  --name NAME [--log-group G ...] [--profile NAME] [--since 1h] [--timeout S]
  kfek query  --list
  kfek proxy  --endpoint DOMAIN-ENDPOINT [--port 9200] [--region R] [--max-buffered-mib 256] [--max-bodies 8]
              [--headers-timeout 20s] [--request-timeout 120s] [--upstream-timeout 300s]
  kfek doctor [--profile sandbox] [--region R] [--skip-synth | --cdk-out DIR] [--synth-timeout 300s] [--json]

Common options:
  --endpoint URL   CloudWatch Logs endpoint (e.g. http://127.0.0.1:5000 for moto); default AWS_ENDPOINT_URL or AWS
  --region R       default AWS_REGION, or us-east-1 with an endpoint override
  --json           print the result as JSON on stdout
  -h, --help       this text

send writes N realistic events (JSON app logs with some ERRORs, Lambda START/END/REPORT lines, Log4J lines), each
carrying "kfek_run=<ID> kfek_seq=<n>", at most R per second; the run id is printed at the end.
verify searches OpenSearch (URL may carry user:password for basic auth) for that run and reports delivered,
missing and latency percentiles; it keeps polling until --expect events are found or --timeout passes.
query runs a built-in query (errors-by-15m, latest-errors, lambda-report-stats; without --log-group on the log
groups of the cdk.json profile, default sandbox) or a saved definition by its full name, over --since, and prints
a table.
proxy listens on 127.0.0.1 only and relays every request to the OpenSearch domain signed with SigV4 (your AWS
credentials, service es), so a browser can open http://127.0.0.1:9200/_dashboards; Ctrl-C stops it. The region
defaults to --region, AWS_REGION, or the one in the endpoint host name. It refuses requests other web pages make
(foreign Host or Origin, Sec-Fetch-Site cross-site or same-site) with 403; request bodies are buffered to be signed,
at most 100 MiB each and --max-buffered-mib in total for at most --max-bodies requests at once (more get 503 with
Retry-After); a client slower than --headers-timeout / --request-timeout gets 408, a silent domain 504 after
--upstream-timeout.
doctor checks, before \`cdk deploy\`, that your credentials work (and the backend role OpenSearch will see), the
region is set, the account is bootstrapped there, the profile synthesizes, the Lambda concurrency quota and the
OpenSearch instance type fit, and no existing resource holds a name the profile wants; once deployed, that the
stacks are complete, the log groups are subscribed to the raw stream and you are mapped in OpenSearch. Each finding
comes with its fix; the exit code is 1 when a check failed.`;

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;
const UNIT_MILLIS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** `90`, `90s`, `15m`, `1h`, `2d`, `500ms` to milliseconds; a bare number is in `bareUnit`. */
export function parseDuration(text: string, option: string, bareUnit: 's' | 'ms' = 's'): number {
  const m = DURATION.exec(text.trim());
  if (m === null)
    throw new UsageError(`${option} ${JSON.stringify(text)} is not a duration such as 30s, 15m or 1h`);
  return Math.round(Number(m[1]) * UNIT_MILLIS[m[2] ?? bareUnit]);
}

/** `50`, `50/s`, `3000/m` to events per second. */
export function parseRate(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(?:\/(s|m))?$/.exec(text.trim());
  const value = m === null ? Number.NaN : Number(m[1]) / (m[2] === 'm' ? 60 : 1);
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new UsageError(`--rate ${JSON.stringify(text)} is not a rate such as 50, 50/s or 3000/m`);
  }
  return value;
}

function parseCount(text: string, option: string, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${option} ${JSON.stringify(text)} is not a whole number >= ${min}`);
  }
  return value;
}

function parseUrl(text: string, option: string): string {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    return text;
  } catch {
    throw new UsageError(`${option} ${JSON.stringify(text)} is not an http(s) URL`);
  }
}

const COMMON_OPTIONS = {
  endpoint: { type: 'string' },
  region: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Env = Readonly<Record<string, string | undefined>>;

/** Parses `argv` (without `node` and the script). */
export function parseCliArgs(argv: readonly string[], env: Env = {}): CliArgs {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    return { command: 'help' };
  }
  try {
    switch (command) {
      case 'send':
        return parseSend(rest);
      case 'verify':
        return parseVerify(rest, env);
      case 'query':
        return parseQuery(rest);
      case 'proxy':
        return parseProxy(rest, env);
      case 'doctor':
        return parseDoctor(rest);
      default:
        throw new UsageError(
          `unknown command ${JSON.stringify(command)}; expected send, verify, query, proxy, doctor or help`,
        );
    }
  } catch (error) {
    // parseArgs throws TypeErrors with codes such as ERR_PARSE_ARGS_UNKNOWN_OPTION; they are usage errors.
    if (error instanceof UsageError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${command}: ${message.replace(/^TypeError \[[A-Z_]+\]: /, '')}`);
  }
}

function common(values: { endpoint?: string; region?: string; json?: boolean }): CommonArgs {
  return {
    ...(values.endpoint !== undefined ? { endpoint: parseUrl(values.endpoint, '--endpoint') } : {}),
    ...(values.region !== undefined ? { region: values.region } : {}),
    json: values.json === true,
  };
}

function parseSend(args: readonly string[]): SendArgs | HelpArgs {
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      ...COMMON_OPTIONS,
      'log-group': { type: 'string' },
      'log-stream': { type: 'string' },
      count: { type: 'string' },
      rate: { type: 'string' },
      'run-id': { type: 'string' },
      seed: { type: 'string' },
    },
  });
  if (values.help) return { command: 'help' };
  const logGroupName = values['log-group'];
  if (logGroupName === undefined || logGroupName === '')
    throw new UsageError('send: --log-group is required');
  return {
    command: 'send',
    ...common(values),
    logGroupName,
    ...(values['log-stream'] !== undefined ? { logStreamName: values['log-stream'] } : {}),
    count: values.count === undefined ? 100 : parseCount(values.count, '--count', 1),
    ...(values.rate !== undefined ? { ratePerSecond: parseRate(values.rate) } : {}),
    ...(values['run-id'] !== undefined ? { runId: values['run-id'] } : {}),
    ...(values.seed !== undefined ? { seed: parseCount(values.seed, '--seed', 0) } : {}),
  };
}

function parseVerify(args: readonly string[], env: Env): VerifyArgs | HelpArgs {
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      ...COMMON_OPTIONS,
      'run-id': { type: 'string' },
      opensearch: { type: 'string' },
      index: { type: 'string', default: '*' },
      expect: { type: 'string' },
      timeout: { type: 'string' },
      interval: { type: 'string', default: '2s' },
      'ingest-field': { type: 'string' },
      sigv4: { type: 'boolean', default: false },
    },
  });
  if (values.help) return { command: 'help' };
  const runId = values['run-id'];
  if (runId === undefined || runId === '') throw new UsageError('verify: --run-id is required');
  const url = values.opensearch ?? env.KFEK_OPENSEARCH_URL;
  if (url === undefined || url === '') {
    throw new UsageError('verify: --opensearch URL is required (or set KFEK_OPENSEARCH_URL)');
  }
  const expected = values.expect === undefined ? undefined : parseCount(values.expect, '--expect', 0);
  return {
    command: 'verify',
    ...common(values),
    runId,
    openSearchUrl: parseUrl(url, '--opensearch'),
    indexPattern: values.index,
    ...(expected !== undefined ? { expected } : {}),
    // Without --expect there is nothing to wait for: one search. With it, wait up to 5 minutes by default.
    timeoutInMillis:
      values.timeout !== undefined
        ? parseDuration(values.timeout, '--timeout')
        : expected !== undefined
          ? 300_000
          : 0,
    pollIntervalInMillis: parseDuration(values.interval, '--interval'),
    ...(values['ingest-field'] !== undefined ? { ingestField: values['ingest-field'] } : {}),
    sigv4: values.sigv4,
  };
}

function parseQuery(args: readonly string[]): QueryArgs | HelpArgs {
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      ...COMMON_OPTIONS,
      name: { type: 'string' },
      list: { type: 'boolean', default: false },
      'log-group': { type: 'string', multiple: true },
      profile: { type: 'string' },
      since: { type: 'string', default: '1h' },
      timeout: { type: 'string', default: '120s' },
    },
  });
  if (values.help) return { command: 'help' };
  if (!values.list && (values.name === undefined || values.name === '')) {
    throw new UsageError('query: --name is required (or --list to see the built-in queries)');
  }
  return {
    command: 'query',
    ...common(values),
    ...(values.name !== undefined ? { name: values.name } : {}),
    list: values.list,
    logGroupNames: values['log-group'] ?? [],
    ...(values.profile !== undefined ? { profile: values.profile } : {}),
    sinceInMillis: parseDuration(values.since, '--since'),
    timeoutInMillis: parseDuration(values.timeout, '--timeout'),
  };
}

/** Region of an Amazon OpenSearch Service endpoint (`search-x-abc.eu-west-1.es.amazonaws.com`). */
export function regionFromHost(host: string): string | undefined {
  return /\.([a-z]{2}(?:-[a-z]+)+-\d)\.es\.amazonaws\.com$/.exec(host)?.[1];
}

function parseProxy(args: readonly string[], env: Env): ProxyArgs | HelpArgs {
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      endpoint: { type: 'string' },
      region: { type: 'string' },
      port: { type: 'string', default: '9200' },
      'max-buffered-mib': { type: 'string' },
      'max-bodies': { type: 'string' },
      'headers-timeout': { type: 'string' },
      'request-timeout': { type: 'string' },
      'upstream-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { command: 'help' };
  const limits = parseProxyLimits(values);
  const endpoint = values.endpoint?.trim();
  if (endpoint === undefined || endpoint === '') {
    throw new UsageError(
      'proxy: --endpoint is required: the domain endpoint from the Search stack outputs ' +
        '(search-<name>-<id>.<region>.es.amazonaws.com) or an http(s) URL',
    );
  }
  let host: string;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint) ? endpoint : `https://${endpoint}`);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    host = url.hostname;
  } catch {
    throw new UsageError(
      `proxy: --endpoint ${JSON.stringify(endpoint)} is neither a host name nor an http(s) URL`,
    );
  }
  const port = parseCount(values.port, '--port', 0);
  if (port > 65535) throw new UsageError(`--port ${JSON.stringify(values.port)} is not a port (0-65535)`);
  const region = values.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? regionFromHost(host);
  return {
    command: 'proxy',
    endpoint,
    ...(region !== undefined && region !== '' ? { region } : {}),
    port,
    ...limits,
  };
}

/** The proxy's optional memory and timeout limits; only those given are set (the proxy owns the defaults). */
function parseProxyLimits(values: {
  readonly 'max-buffered-mib'?: string;
  readonly 'max-bodies'?: string;
  readonly 'headers-timeout'?: string;
  readonly 'request-timeout'?: string;
  readonly 'upstream-timeout'?: string;
}): Pick<
  ProxyArgs,
  | 'maxBufferedBytes'
  | 'maxConcurrentBodies'
  | 'headersTimeoutInMillis'
  | 'requestTimeoutInMillis'
  | 'upstreamTimeoutInMillis'
> {
  const mib = values['max-buffered-mib'];
  // The total must hold one largest body (100 MiB), or that body could never be signed.
  if (mib !== undefined && parseCount(mib, '--max-buffered-mib', 0) < 100) {
    throw new UsageError(
      `--max-buffered-mib ${JSON.stringify(mib)} must be at least 100 (the largest single body, 100 MiB)`,
    );
  }
  const duration = (name: 'headers-timeout' | 'request-timeout' | 'upstream-timeout'): number | undefined => {
    const text = values[name];
    if (text === undefined) return undefined;
    const millis = parseDuration(text, `--${name}`);
    if (millis <= 0) throw new UsageError(`--${name} ${JSON.stringify(text)} must be longer than 0`);
    return millis;
  };
  const headers = duration('headers-timeout');
  const request = duration('request-timeout');
  if (headers !== undefined && request !== undefined && headers > request) {
    throw new UsageError(
      `--headers-timeout (${values['headers-timeout']}) must not be longer than --request-timeout ` +
        `(${values['request-timeout']}): the headers are part of the request`,
    );
  }
  const upstream = duration('upstream-timeout');
  const bodies = values['max-bodies'];
  return {
    ...(mib !== undefined ? { maxBufferedBytes: Number(mib) * 1024 * 1024 } : {}),
    ...(bodies !== undefined ? { maxConcurrentBodies: parseCount(bodies, '--max-bodies', 1) } : {}),
    ...(headers !== undefined ? { headersTimeoutInMillis: headers } : {}),
    ...(request !== undefined ? { requestTimeoutInMillis: request } : {}),
    ...(upstream !== undefined ? { upstreamTimeoutInMillis: upstream } : {}),
  };
}

function parseDoctor(args: readonly string[]): DoctorArgs | HelpArgs {
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      profile: { type: 'string', default: 'sandbox' },
      region: { type: 'string' },
      json: { type: 'boolean', default: false },
      'skip-synth': { type: 'boolean', default: false },
      'cdk-out': { type: 'string' },
      'synth-timeout': { type: 'string', default: '300s' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { command: 'help' };
  if (!/^[a-z0-9][a-z0-9-]*$/i.test(values.profile)) {
    throw new UsageError(
      `doctor: --profile ${JSON.stringify(values.profile)} is not a profile name of cdk.json`,
    );
  }
  if (values['skip-synth'] && values['cdk-out'] !== undefined) {
    throw new UsageError('doctor: --skip-synth and --cdk-out exclude each other');
  }
  return {
    command: 'doctor',
    profile: values.profile,
    ...(values.region !== undefined && values.region !== '' ? { region: values.region } : {}),
    json: values.json,
    skipSynth: values['skip-synth'],
    ...(values['cdk-out'] !== undefined ? { cdkOut: values['cdk-out'] } : {}),
    synthTimeoutInMillis: parseDuration(values['synth-timeout'], '--synth-timeout'),
  };
}
