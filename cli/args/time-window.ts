/**
 * The window of every command that reads one (backfill, reconcile, replay, events-window): --since and --until read
 * by the one time parser (cli/args/values.ts), and one rule for their order, so every command refuses the same
 * windows in the same words and none hands a time it cannot print to the code after it.
 */
import { UsageError } from '../errors';
import { forCommand, parseTimeBeforeNow } from './values';

/** The options as typed. */
export interface TimeWindowTexts {
  readonly since?: string;
  readonly until?: string;
}

export interface TimeWindow {
  readonly since?: Date;
  readonly until?: Date;
}

/**
 * `--since` and `--until` of `command`, each a duration before `now` or an ISO time from 1970 to 9999; a window whose
 * start is not before its end (`--until`, else now) is refused: it holds nothing to read, so it is a typing mistake.
 */
export function parseTimeWindow(
  command: string,
  texts: TimeWindowTexts & { readonly since: string },
  now: Date,
): TimeWindow & { readonly since: Date };
export function parseTimeWindow(command: string, texts: TimeWindowTexts, now: Date): TimeWindow;
export function parseTimeWindow(command: string, texts: TimeWindowTexts, now: Date): TimeWindow {
  const time = (text: string | undefined, option: string): Date | undefined =>
    text === undefined ? undefined : forCommand(command, () => parseTimeBeforeNow(text, option, now));
  const since = time(texts.since, '--since');
  const until = time(texts.until, '--until');
  if (since !== undefined && since.getTime() >= (until ?? now).getTime()) {
    const end = until === undefined ? `now (${now.toISOString()})` : `--until ${until.toISOString()}`;
    throw new UsageError(
      `${command}: --since ${since.toISOString()} is not before ${end}: give a --since earlier than ` +
        `${until === undefined ? 'now' : 'the --until'}`,
    );
  }
  return { ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) };
}
