/** Parsers of the commands that work on a deployment as a whole: proxy and doctor. */
import { resolveAwsTarget } from '../aws-target';
import { UsageError } from '../errors';
import type { Env } from './commands';
import type { DOCTOR_OPTIONS, OptionValues, PROXY_OPTIONS } from './options';
import type { DoctorArgs, ProxyArgs } from './types';
import {
  optional,
  parseCount,
  parseName,
  parseProfileName,
  parseRegion,
  parseWait,
  quote,
  regionFromHost,
  openSearchTargetOf,
} from './values';

export function parseProxy(values: OptionValues<typeof PROXY_OPTIONS>, env: Env): ProxyArgs {
  const limits = parseProxyLimits(values);
  const endpoint = values.endpoint?.trim();
  if (endpoint === undefined || endpoint === '') {
    throw new UsageError(
      'proxy: --endpoint is required: the domain endpoint from the Search stack outputs ' +
        '(search-<name>-<id>.<region>.es.amazonaws.com) or an http(s) URL',
    );
  }
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint) ? endpoint : `https://${endpoint}`);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new UsageError(`proxy: --endpoint ${quote(endpoint)} is neither a host name nor an http(s) URL`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(
      `proxy: --endpoint ${quote(endpoint)} carries a user name or password: leave it out, the proxy signs ` +
        'with your AWS credentials',
    );
  }
  const port = parseCount(values.port, '--port', 0);
  if (port > 65535) throw new UsageError(`--port ${quote(values.port)} is not a port (0-65535)`);
  const { region } = resolveAwsTarget(
    { ...optional('region', values.region, (v) => parseRegion(v, '--region')) },
    env,
    {
      defaultRegion: () => regionFromHost(url.hostname),
    },
  );
  return {
    command: 'proxy',
    endpoint,
    ...(region !== undefined ? { region } : {}),
    ...proxyService(url.hostname, values.service),
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
      `--max-buffered-mib ${quote(mib)} must be at least 100 (the largest single body, 100 MiB)`,
    );
  }
  const duration = (name: 'headers-timeout' | 'request-timeout' | 'upstream-timeout'): number | undefined => {
    const text = values[name];
    if (text === undefined) return undefined;
    return parseWait(text, `--${name}`, { positive: true });
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
    ...optional('maxBufferedBytes', mib, (v) => Number(v) * 1024 * 1024),
    ...optional('maxConcurrentBodies', bodies, (v) => parseCount(v, '--max-bodies', 1)),
    ...optional('headersTimeoutInMillis', values['headers-timeout'], () => headers),
    ...optional('requestTimeoutInMillis', values['request-timeout'], () => request),
    ...optional('upstreamTimeoutInMillis', values['upstream-timeout'], () => upstream),
  };
}

export function parseDoctor(values: OptionValues<typeof DOCTOR_OPTIONS>): DoctorArgs {
  parseProfileName(values.profile, 'doctor');
  if (values['skip-synth'] && values['cdk-out'] !== undefined) {
    throw new UsageError('doctor: --skip-synth and --cdk-out exclude each other');
  }
  return {
    command: 'doctor',
    profile: values.profile,
    ...optional('region', values.region, (v) => parseRegion(v, '--region')),
    json: values.json,
    skipSynth: values['skip-synth'],
    ...optional('cdkOut', values['cdk-out'], (v) => parseName(v, '--cdk-out', 4096)),
    synthTimeoutInMillis: parseWait(values['synth-timeout'], '--synth-timeout', { positive: true }),
  };
}

/** `{ service }` when `--service` is given or the host is a collection's, else `{}` (the proxy's default, `es`). */
function proxyService(host: string, given: string | undefined): Pick<ProxyArgs, 'service'> {
  const { kind, service } = openSearchTargetOf('proxy', { host, ...optional('service', given, (v) => v) });
  return given !== undefined || kind === 'serverless' ? { service } : {};
}
