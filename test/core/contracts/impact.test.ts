/**
 * The one impact vocabulary (core/contracts/impact.ts) that the stack change planner and the domain planner share:
 * its order is a badness order, so a renderer that walks it worst first never shows a lighter finding above a
 * heavier one.
 */
import { IMPACT_ORDER, IMPACTS, type Severity, worstFirst } from '../../../core/contracts/impact';

const SEVERITY_RANK: Readonly<Record<Severity, number>> = { fail: 0, warn: 1, notice: 2, quiet: 3 };

describe('impact vocabulary', () => {
  test('orders the impacts that stop the deploy first, then by severity, worst first', () => {
    // GIVEN the impacts in their order
    const meanings = IMPACT_ORDER.map((impact) => ({ impact, ...IMPACTS[impact] }));
    // THEN every impact that stops the deploy comes before every one that does not
    const lastStop = meanings.map((m) => m.stopsDeploy).lastIndexOf(true);
    const firstGo = meanings.findIndex((m) => !m.stopsDeploy);
    expect(lastStop).toBeLessThan(firstGo);
    // AND severity never gets worse further down
    const ranks = meanings.map((m) => SEVERITY_RANK[m.severity]);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  test('only impacts that stop the deploy are severe enough to fail, and every impact has a title', () => {
    const stopping = IMPACT_ORDER.filter((impact) => IMPACTS[impact].stopsDeploy);
    expect(stopping.map((impact) => [impact, IMPACTS[impact].severity])).toEqual(
      stopping.map((impact) => [impact, 'fail']),
    );
    expect(IMPACT_ORDER.filter((impact) => IMPACTS[impact].title.trim().length === 0)).toEqual([]);
  });

  test('worstFirst orders findings of both planners by the one table, keeping the order of equals', () => {
    // GIVEN findings as both planners write them
    const findings = [
      { id: 'a', impact: 'change' },
      { id: 'b', impact: 'loses-data' },
      { id: 'c', impact: 'replaces' },
      { id: 'd', impact: 'refused' },
      { id: 'e', impact: 'loses-data' },
      { id: 'f', impact: 'drift' },
    ] as const;
    // WHEN
    const ordered = worstFirst(findings).map((f) => f.id);
    // THEN
    expect(ordered).toEqual(['d', 'b', 'e', 'f', 'c', 'a']);
  });
});
