/**
 * Which minutes the exact tier reads (engine.ts): those whose counts differ on the two sides, and those whose equal
 * counts prove nothing because a multi-line join moved lines across a minute boundary.
 *
 * OpenSearch counts a joined document with its lines in the document's (its first line's) minute, while CloudWatch
 * Logs counts each line in its own. A Java trace at :58, :59 and the next minute's :00.5 is three events in minute M
 * on the OpenSearch side and two on the CloudWatch side: one lost event in M makes the counts equal, and only M+1
 * differs. So a minute with joined lines is read exactly whenever a minute its traces may reach (the join lookback)
 * is read, transitively (a chain of such minutes hides the loss just as well), and when its traces may reach past
 * the end of the judged window, whose minutes nobody compares. Minutes without joined lines are judged by their
 * counts alone, as before.
 */

export const MINUTE_MILLIS = 60_000;

/** The minute an epoch-millis time falls in (its start). */
export function minuteOf(time: number): number {
  return Math.floor(time / MINUTE_MILLIS) * MINUTE_MILLIS;
}

/** Consecutive minutes whose counts differ, as ranges of at most `maxMinutes` (the last one may end in a minute). */
export function differingRanges(
  start: number,
  end: number,
  cloudWatch: ReadonlyMap<number, number> | undefined,
  openSearch: ReadonlyMap<number, number> | undefined,
  maxMinutes: number,
): { start: number; end: number }[] {
  return exactRanges(
    start,
    end,
    { cloudWatch, openSearch, joined: undefined, lookbackInMillis: 0 },
    maxMinutes,
  );
}

export interface MinuteSides {
  readonly cloudWatch: ReadonlyMap<number, number> | undefined;
  readonly openSearch: ReadonlyMap<number, number> | undefined;
  /** Lines joined into the documents of each minute (OpenSearch side). */
  readonly joined: ReadonlyMap<number, number> | undefined;
  /** How far after its first line a trace may reach (the exact tier's join lookback). */
  readonly lookbackInMillis: number;
}

/**
 * The minutes to read exactly (see the file comment), as ranges of at most `maxMinutes` consecutive minutes (the
 * last one may end in a minute).
 */
export function exactRanges(
  start: number,
  end: number,
  sides: MinuteSides,
  maxMinutes: number,
): { start: number; end: number }[] {
  const read = new Set<number>();
  for (let minute = start; minute < end; minute += MINUTE_MILLIS) {
    if ((sides.cloudWatch?.get(minute) ?? 0) !== (sides.openSearch?.get(minute) ?? 0)) read.add(minute);
  }
  const joinedMinutes = [...(sides.joined ?? [])]
    .filter(([minute, n]) => n > 0 && minute >= start && minute < end)
    .map(([minute]) => minute)
    .sort((a, b) => b - a);
  // A trace starting in minute m may reach lines up to the end of m plus the lookback.
  const reach = (minute: number): number => minute + MINUTE_MILLIS + sides.lookbackInMillis;
  // Latest first, so one pass carries a chain of such minutes back to its start.
  for (const minute of joinedMinutes) {
    if (reach(minute) > end) {
      read.add(minute);
      continue;
    }
    for (let later = minute + MINUTE_MILLIS; later < reach(minute); later += MINUTE_MILLIS) {
      if (read.has(later)) {
        read.add(minute);
        break;
      }
    }
  }
  const ranges: { start: number; end: number }[] = [];
  for (const minute of [...read].sort((a, b) => a - b)) {
    const minuteEnd = Math.min(minute + MINUTE_MILLIS, end);
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last.end === minute && (minute - last.start) / MINUTE_MILLIS < maxMinutes) {
      last.end = minuteEnd;
    } else {
      ranges.push({ start: minute, end: minuteEnd });
    }
  }
  return ranges;
}
