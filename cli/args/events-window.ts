/** The parser of `kfek events-window`: its option values (options.ts) in, typed arguments out; pure. */
import { UsageError } from '../errors';
import type { EVENTS_WINDOW_OPTIONS, OptionValues } from './options';
import { parseTimeWindow } from './time-window';
import type { EventsWindowArgs } from './types';
import {
  optional,
  parseCount,
  parseProfileName,
  parseRate,
  parseRegion,
  parseStreamName,
  parseUrl,
} from './values';

export function parseEventsWindow(
  values: OptionValues<typeof EVENTS_WINDOW_OPTIONS>,
  now: Date,
): EventsWindowArgs {
  const since = values.since;
  if (since === undefined || since.trim() === '') {
    throw new UsageError(
      'events-window: --since is required: the time (ISO) or the duration before now (24h) from which to re-put, ' +
        "e.g. shortly before the old delivery stream stopped; a time before the retention starts at the stream's " +
        'oldest record',
    );
  }
  const window = parseTimeWindow('events-window', { since, until: values.until }, now);
  const events = values['events-stream'];
  return {
    command: 'events-window',
    ...window,
    ...optional('eventsStream', events, (v) => parseStreamName(v, '--events-stream')),
    ...optional('profile', values.profile, (v) => parseProfileName(v, 'events-window')),
    ...optional('limit', values.limit, (v) => parseCount(v, '--limit', 1)),
    ...optional('ratePerSecond', values.rate, parseRate),
    dryRun: values['dry-run'],
    ...optional('endpoint', values.endpoint, (v) => parseUrl(v, '--endpoint')),
    ...optional('region', values.region, (v) => parseRegion(v, '--region')),
    json: values.json,
  };
}
