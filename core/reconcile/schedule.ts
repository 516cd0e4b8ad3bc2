/**
 * The window a scheduled run judges: the period of `everyMinutes` that ended `lagMinutes` before the run was due,
 * on the clock's boundaries (every 15 minutes with a 15-minute lag: at 10:07, 09:30 to 09:45). Runs due one period
 * apart judge windows that follow each other without a gap or an overlap, whatever second the scheduler fires in.
 */
export function scheduledWindow(
  dueAt: number,
  everyMinutes: number,
  lagMinutes: number,
): { readonly since: number; readonly until: number } {
  const period = everyMinutes * 60_000;
  const until = Math.floor((dueAt - lagMinutes * 60_000) / period) * period;
  return { since: until - period, until };
}
