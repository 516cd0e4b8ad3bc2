/** Parsers of the commands that work on a deployment as a whole: proxy and doctor. */
import { UsageError } from '../errors';
import type { Env } from './commands';
import { DOCTOR_OPTIONS, parseOptions, PROXY_OPTIONS } from './options';
import type { DoctorArgs, HelpArgs, ProxyArgs } from './types';
import { parseCount, parseDuration, regionFromHost } from './values';

export function parseProxy(args: readonly string[], env: Env): ProxyArgs | HelpArgs {
  const values = parseOptions(args, PROXY_OPTIONS);
  if (values.help) return { command: 'help', topic: 'proxy' };
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

export function parseDoctor(args: readonly string[]): DoctorArgs | HelpArgs {
  const values = parseOptions(args, DOCTOR_OPTIONS);
  if (values.help) return { command: 'help', topic: 'doctor' };
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
