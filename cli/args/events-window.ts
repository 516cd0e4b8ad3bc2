/** The parser of `kfek events-window`: its option table (options.ts) in, typed arguments out; pure. */
import { UsageError } from '../errors';
import { EVENTS_WINDOW_OPTIONS, parseOptions } from './options';
import type { EventsWindowArgs, HelpArgs } from './types';
import { parseCount, parseProfileName, parseRate, parseRegion, parseStreamName, parseUrl } from './values';

export function parseEventsWindow(args: readonly string[]): EventsWindowArgs | HelpArgs {
  const values = parseOptions(args, EVENTS_WINDOW_OPTIONS);
  if (values.help) return { command: 'help', topic: 'events-window' };
  const since = values.since;
  if (since === undefined || since.trim() === '') {
    throw new UsageError(
      'events-window: --since is required: the time (ISO) or the duration before now (24h) from which to re-put, ' +
        "e.g. shortly before the old delivery stream stopped; a time before the retention starts at the stream's " +
        'oldest record',
    );
  }
  const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
    (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
  const events = values['events-stream'];
  return {
    command: 'events-window',
    sinceText: since,
    ...optional('untilText', values.until),
    ...optional(
      'eventsStream',
      events === undefined ? undefined : parseStreamName(events, '--events-stream'),
    ),
    ...optional(
      'profile',
      values.profile === undefined ? undefined : parseProfileName(values.profile, 'events-window'),
    ),
    ...optional('limit', values.limit === undefined ? undefined : parseCount(values.limit, '--limit', 1)),
    ...optional('ratePerSecond', values.rate === undefined ? undefined : parseRate(values.rate)),
    dryRun: values['dry-run'],
    ...optional(
      'endpoint',
      values.endpoint === undefined ? undefined : parseUrl(values.endpoint, '--endpoint'),
    ),
    ...optional('region', values.region === undefined ? undefined : parseRegion(values.region, '--region')),
    json: values.json,
  };
}
