/**
 * The house's size ceiling (issue 40, item 6): no file over 400 lines and no function over 80 (test/lint/code-size.ts
 * says how they are measured) unless it is listed here by name.
 *
 * - {@link EXCEPTIONS}: at most five, each with the reason it stays large.
 * - {@link DEBT}: what was over the ceiling when the test was written and has not been split yet, each with its size
 *   then. An entry may only shrink: it fails when it grows, and when it falls under the ceiling it must be taken off
 *   the list, so the list can only get shorter. Nothing new may join it: new code keeps under the ceiling.
 */
import * as path from 'node:path';
import { MAX_FILE_LINES, MAX_FUNCTION_LINES, oversizeUnder, type Oversize } from './code-size';

const ROOT = path.resolve(__dirname, '..', '..');

/** Large on purpose, with the reason. At most five. */
const EXCEPTIONS: Readonly<Record<string, string>> = {
  'cli/args/options.ts':
    "The CLI's one options table: one entry per option of every command, read top to bottom; splitting it by " +
    'command would bring back the per-command option readers issue 40 removed.',
};

/** Over the ceiling when the ceiling came (2026-11-29), with the size then; may only shrink, then leaves. */
const DEBT: Readonly<Record<string, number>> = {
  'core/transform/app-json.ts': 478,
  'core/opensearch/domain-plan-access.ts': 476,
  'lib/constructs/opensearch-provisioner.ts': 430,
  'core/opensearch/domain-state.ts': 418,
  'lib/stacks/pipeline-stack.ts': 413,
  'core/transform/document.ts': 405,
  'lib/stacks/pipeline-stack.ts#PipelineStack.constructor': 237,
  'cli/proxy/index.ts#createSigningProxy': 200,
  'lib/constructs/opensearch-provisioner.ts#OpenSearchProvisioner.constructor': 193,
  'lib/constructs/firehose-to-opensearch.ts#FirehoseToOpenSearch.constructor': 192,
  'scripts/local/run.ts#runLocal': 178,
  'cli/events-window/run.ts#replayEventsWindow': 147,
  'lib/constructs/monitoring/dashboard.ts#createDashboard': 144,
  'core/reconcile/search-side.ts#searchSide': 137,
  'lib/app.ts#buildKfek': 133,
  'cli/backfill/run.ts#runBackfill': 129,
  'lib/stacks/search-stack.ts#SearchStack.constructor': 111,
  'core/opensearch/provision.ts#provisionOpenSearch': 108,
  'core/reconcile/engine.ts#reconcile': 108,
  'core/transform/app-json.ts#canonicalMembersText': 106,
  'cli/doctor/plan.ts#planOf': 105,
  'lambda/transform/kinesis-writer.ts#KinesisWriter.write': 105,
  'lib/constructs/reconcile-function.ts#ReconcileFunction.constructor': 103,
  'cli/send.ts#sendLogEvents': 102,
  'core/opensearch/domain-plan-access.ts#planRoles': 100,
  'cli/doctor/facts.ts#gatherFacts': 99,
  'core/opensearch/domain-families.ts#familiesOf': 98,
  'core/reconcile/service.ts#runReconcileWith': 97,
  'lib/constructs/monitoring/alarms.ts#createLibraryAlarms': 97,
  'lib/constructs/transform-function.ts#TransformFunction.constructor': 96,
  'core/opensearch/domain-plan-ism.ts#planPolicies': 95,
  'core/transform/app-json.ts#appMemberList': 95,
  'cli/proxy/body-budget.ts#BodyBudget.read': 94,
  'lib/constructs/monitoring/thresholds.ts#validateMonitoringProps': 92,
  'cli/doctor/create-ports.ts#createAwsPorts': 91,
  'cli/backfill/cost.ts#estimateCost': 90,
  'cli/replay/run.ts#runReplay': 88,
  'core/reconcile/heal.ts#healMissing': 87,
  'lambda/transform/kinesis-batch.ts#processKinesisBatch': 86,
  'cli/verify.ts#verifyRun': 84,
  'core/opensearch/domain-plan-access.ts#planSharedMappings': 81,
  'core/opensearch/domain-plan-indices.ts#planTemplates': 81,
};

function listed(id: string): boolean {
  return Object.hasOwn(EXCEPTIONS, id) || Object.hasOwn(DEBT, id);
}

describe('size ceiling', () => {
  let oversize: readonly Oversize[];
  beforeAll(() => {
    oversize = oversizeUnder(ROOT);
  });

  it(`lists every file over ${MAX_FILE_LINES} lines and function over ${MAX_FUNCTION_LINES} lines by name`, () => {
    // GIVEN the measured code
    // WHEN it is held to the ceiling
    const unlisted = oversize.filter((o) => !listed(o.id)).map((o) => `${o.id} (${o.lines} lines)`);
    // THEN nothing is over it without a name here (split it along its seams instead of listing it)
    expect(unlisted).toEqual([]);
  });

  it('keeps no entry for something that is now under the ceiling', () => {
    // GIVEN the lists
    const over = new Set(oversize.map((o) => o.id));
    // WHEN each entry is looked up
    const stale = [...Object.keys(EXCEPTIONS), ...Object.keys(DEBT)].filter((id) => !over.has(id));
    // THEN each is still over (take it off the list when it is not: the list only shrinks)
    expect(stale).toEqual([]);
  });

  it('lets no debt entry grow', () => {
    // GIVEN the sizes recorded when the ceiling came
    // WHEN they are compared with today's
    const grown = oversize
      .filter((o) => Object.hasOwn(DEBT, o.id) && o.lines > DEBT[o.id])
      .map((o) => `${o.id}: ${DEBT[o.id]} -> ${o.lines} lines`);
    // THEN none grew
    expect(grown).toEqual([]);
  });

  it('names at most five exceptions, each with a reason', () => {
    expect(Object.keys(EXCEPTIONS).length).toBeLessThanOrEqual(5);
    for (const reason of Object.values(EXCEPTIONS)) expect(reason.length).toBeGreaterThan(40);
  });
});
