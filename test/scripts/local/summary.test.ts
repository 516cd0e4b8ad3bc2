/**
 * What makes a local run whole (run.ts `ok`, the summary's verdict): every event written is searchable, or a route's
 * drop rule kept it out, or a multi-line rule joined it into the event before it (docs/teams-and-routes.md).
 */
import { eventsMissing, type RunSummary } from '../../../scripts/local/summary';

/** The counts {@link eventsMissing} reads; the rest of a summary does not matter to it. */
function summaryOf(
  counts: Pick<RunSummary, 'eventsWritten' | 'eventsSearchable' | 'processing'>,
): RunSummary {
  return counts as RunSummary;
}

describe('eventsMissing', () => {
  const processing = { droppedByRule: { 'health-checks': 1, debug: 1 }, joinedLines: 8 };

  test.each([
    ['a teams run whose drops and joins account for every event not searchable misses nothing', 11, 0],
    ['fails when an event is neither searchable nor dropped nor joined: it is missing', 10, 1],
  ])('%s', (_name, eventsSearchable, missing) => {
    // GIVEN 21 events: 2 dropped by two rules, 8 lines joined, the rest searchable or not
    const summary = summaryOf({ eventsWritten: 21, eventsSearchable, processing });
    // WHEN / THEN
    expect(eventsMissing(summary)).toBe(missing);
  });

  test('without routes that drop or join, every event written must be searchable', () => {
    // GIVEN / WHEN / THEN
    expect(eventsMissing(summaryOf({ eventsWritten: 5, eventsSearchable: 5 }))).toBe(0);
    expect(eventsMissing(summaryOf({ eventsWritten: 5, eventsSearchable: 6 }))).toBe(-1);
  });
});
