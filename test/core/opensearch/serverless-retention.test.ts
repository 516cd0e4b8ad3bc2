/**
 * Retention on a SEARCH collection (core/opensearch/serverless-retention.ts, issue 42): which of kfek's indices are
 * past their family's retention, by name, and that nothing kfek does not render is ever chosen.
 */
import { indexNameFor, type IndexRotation } from '../../../core/contracts/index-naming';
import { expiredIndices, periodEnd } from '../../../core/opensearch/serverless-retention';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const DAY = 86_400_000;

describe('periodEnd', () => {
  test.each([
    ['OneHour', 'logs-2026-11-29-10', '2026-11-29T11:00:00Z'],
    ['OneDay', 'logs-2026-11-29', '2026-11-30T00:00:00Z'],
    ['OneMonth', 'logs-2026-12', '2027-01-01T00:00:00Z'],
  ] as const)('%s: %s ends at %s', (rotation, index, end) => {
    // WHEN / THEN
    expect(periodEnd(index, 'logs', rotation)).toBe(Date.parse(end));
  });

  test('every week of a year ends the day after the last day that renders its name', () => {
    // GIVEN
    for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += DAY) {
      const index = indexNameFor('logs', 'OneWeek', new Date(t));
      // WHEN
      const end = periodEnd(index, 'logs', 'OneWeek');
      // THEN
      expect(end).toBeGreaterThan(t);
      expect(indexNameFor('logs', 'OneWeek', new Date((end ?? 0) - DAY))).toBe(index);
      expect(indexNameFor('logs', 'OneWeek', new Date(end ?? 0))).not.toBe(index);
    }
  });

  test.each([
    ['logs-2026-11-29-restored', 'OneDay'],
    ['logs-2026-13-01', 'OneDay'],
    ['logs-2026-02-30', 'OneDay'],
    ['logs-2026-11-29', 'OneHour'],
    ['logs', 'NoRotation'],
    ['logsx-2026-11-29', 'OneDay'],
  ] as const)('is undefined for %s under %s: not a name kfek renders', (index, rotation: IndexRotation) => {
    // WHEN / THEN
    expect(periodEnd(index, 'logs', rotation)).toBeUndefined();
  });
});

describe('expiredIndices', () => {
  test("deletes each family's indices past its own retention, and nothing kfek does not own", () => {
    // GIVEN
    const indices = [
      'logs-2026-11-14', // ended 11-15 00:00; 14 days later is 11-29 00:00 <= now: expired
      'logs-2026-11-15', // ends 11-16: kept until 11-30
      'logs-audit-2026-11-01', // the longer stem's, 30 days: kept
      'logs-audit-2026-10-20', // 30 days: expired
      'payments-2026-10-01', // not a stem of this profile
      'logs-backup', // kfek renders no such name
      '.kibana_1',
    ];
    // WHEN
    const expired = expiredIndices({
      indices,
      families: [
        { stem: 'logs', retentionDays: 14 },
        { stem: 'logs-audit', retentionDays: 30 },
      ],
      rotation: 'OneDay',
      now: NOW,
    });
    // THEN
    expect(expired.map((e) => [e.index, e.stem])).toEqual([
      ['logs-2026-11-14', 'logs'],
      ['logs-audit-2026-10-20', 'logs-audit'],
    ]);
  });
});
