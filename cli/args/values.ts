/** Parsers for single option values: each says which option was wrong, the bad value, and what it should be. */
import { UsageError } from '../errors';

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

/** A whole number of at least `min`, e.g. `--count`. */
export function parseCount(text: string, option: string, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${option} ${JSON.stringify(text)} must be a whole number >= ${min}`);
  }
  return value;
}

/** An http(s) URL, returned as given. */
export function parseUrl(text: string, option: string): string {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    return text;
  } catch {
    throw new UsageError(`${option} ${JSON.stringify(text)} is not an http(s) URL`);
  }
}

/** Region of an Amazon OpenSearch Service endpoint (`search-x-abc.eu-west-1.es.amazonaws.com`). */
export function regionFromHost(host: string): string | undefined {
  return /\.([a-z]{2}(?:-[a-z]+)+-\d)\.es\.amazonaws\.com$/.exec(host)?.[1];
}
