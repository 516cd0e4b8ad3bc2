/**
 * Day 2: every realistic change to every shipped profile, synthesized before and after and planned as CloudFormation
 * would carry it out (core/change-plan): no update may be refused (an export in use removed or changed, a named
 * resource replaced, a name claimed twice), and every stateful resource a change replaces or removes must be
 * announced in docs/deploy.md's "Changing a deployed profile" table, whose rows this test also holds to the plan.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CfnTemplate, type ChangePlan, describePlan, planChange } from '../../core/change-plan';
import { CDK_JSON_CONTEXT } from '../helpers/app';
import { type SynthesizedApp, synthProfile } from '../helpers/synth-templates';
import { TRANSITIONS, type Profile, type Transition } from './transitions';
import { markdownTableCells } from '../helpers/doc-snippets';

const SHIPPED = (CDK_JSON_CONTEXT.kfek as { profiles: Record<string, Profile> }).profiles;
const DEPLOY_DOC = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'deploy.md'), 'utf8');

/** A stack's CLI selector with the region folded away (`DestinationEuWest1` -> `Destination<Region>`). */
function stackLabel(app: SynthesizedApp, stackName: string): string {
  const id = app.ids.get(stackName) ?? stackName;
  return id.replace(/^(Destination|Source)[A-Z][A-Za-z]+\d$/, '$1<Region>');
}

/** `Pipeline/Pipe/LogGroup/Resource` -> `Pipeline/Pipe/LogGroup`. */
function resourceLabel(app: SynthesizedApp, stackName: string, logicalId: string): string {
  const full = app.paths.get(stackName)?.get(logicalId) ?? `${stackLabel(app, stackName)}/${logicalId}`;
  return full.replace(/\/Resource$/, '');
}

interface Outcome {
  readonly plan: ChangePlan;
  readonly updated: ReadonlySet<string>;
  /** Stateful resources replaced, or removed without being retained: what the docs must announce. */
  readonly lost: ReadonlySet<string>;
}

/**
 * One plan per account and region (exports and names are regional; IAM names are global, but kfek names no IAM
 * resource per region), merged. A stack that moves to another environment is a new stack there.
 */
function planByEnvironment(before: SynthesizedApp, after: SynthesizedApp): ChangePlan {
  const environments = new Set([...before.environments.values(), ...after.environments.values()]);
  const plans = [...environments].map((env) => {
    const pick = (app: SynthesizedApp): Record<string, CfnTemplate> =>
      Object.fromEntries(
        Object.entries(app.templates).filter(([name]) => app.environments.get(name) === env),
      );
    return planChange({
      before: pick(before),
      after: pick(after),
      order: after.order.filter((name) => after.environments.get(name) === env),
    });
  });
  return {
    stacks: plans.flatMap((p) => p.stacks),
    refused: plans.flatMap((p) => p.refused),
    replacements: plans.flatMap((p) => p.replacements),
    deletions: plans.flatMap((p) => p.deletions),
    nameClashes: plans.flatMap((p) => p.nameClashes),
    unknownTypes: [...new Set(plans.flatMap((p) => p.unknownTypes))],
  };
}

function outcome(before: SynthesizedApp, after: SynthesizedApp): Outcome {
  const plan = planByEnvironment(before, after);
  const updated = new Set(
    plan.stacks
      .filter((s) => s.action === 'update' || s.action === 'create')
      .map((s) => stackLabel(after.ids.has(s.stackName) ? after : before, s.stackName)),
  );
  const lost = new Set([
    ...plan.replacements
      .filter((r) => r.stateful)
      .map((r) => `${resourceLabel(after, r.stackName, r.logicalId)} replaced`),
    ...plan.deletions
      .filter((d) => d.stateful && !d.retained)
      .map((d) => `${resourceLabel(before, d.stackName, d.logicalId)} removed`),
  ]);
  return { plan, updated, lost };
}

/** The cells of the docs table row whose first cell is `change` (backticks and padding removed). */
function docRow(change: string): string[] | undefined {
  const start = DEPLOY_DOC.indexOf('## Changing a deployed profile');
  return markdownTableCells(DEPLOY_DOC.slice(start)).find((cells) => cells[0] === change);
}

/** `` `Pipeline` , `Monitoring` `` -> the set of names in backticks. */
function codeItems(cell: string): Set<string> {
  return new Set([...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]));
}

const baselines = new Map<string, SynthesizedApp>();
function baseline(profile: string): SynthesizedApp {
  const cached = baselines.get(profile);
  if (cached !== undefined) return cached;
  const app = synthProfile(SHIPPED[profile]);
  baselines.set(profile, app);
  return app;
}

interface Case {
  readonly transition: Transition;
  readonly profile: string;
}
const cases: readonly Case[] = TRANSITIONS.flatMap((t) =>
  Object.keys(SHIPPED)
    .filter((profile) => t.appliesTo(SHIPPED[profile]))
    .map((profile) => ({ transition: t, profile })),
);

/** Each case planned once (memoized), so the docs test can run alone and the per-case tests share the work. */
const outcomes = new Map<Case, Outcome>();
function outcomeOf(c: Case): Outcome {
  const cached = outcomes.get(c);
  if (cached !== undefined) return cached;
  const shipped = SHIPPED[c.profile];
  const start = c.transition.from !== undefined ? c.transition.from(shipped) : shipped;
  const before = c.transition.from !== undefined ? synthProfile(start) : baseline(c.profile);
  const result = outcome(before, synthProfile(c.transition.to(start)));
  outcomes.set(c, result);
  return result;
}

/** Synthesizing every case takes a few seconds each on a busy machine. */
const ALL_CASES_TIMEOUT_MS = 600_000;

describe('changing a deployed profile (before/after synthesized, planned as CloudFormation would)', () => {
  test.each(cases.map((c) => [c.transition.change, c.profile, c] as const))(
    '%s (%s): updates without a refused step',
    (_change, _profile, c) => {
      // GIVEN the shipped profile (or the transition's starting point) deployed
      // WHEN the change is synthesized and planned against it
      const { plan } = outcomeOf(c);
      // THEN nothing is refused and every resource type was compared
      const explain = describePlan(plan).join('\n');
      expect({ refused: plan.refused.map((r) => r.message), explain }).toEqual({ refused: [], explain });
      expect({ nameClashes: plan.nameClashes.map((n) => n.message), explain }).toEqual({
        nameClashes: [],
        explain,
      });
      expect({
        unknownTypes: plan.unknownTypes,
        fix: 'add them to EXTRA_TYPES in scripts/create-only-properties.ts',
      }).toEqual({
        unknownTypes: [],
        fix: 'add them to EXTRA_TYPES in scripts/create-only-properties.ts',
      });
      expect(plan.replacements.filter((r) => r.refused)).toEqual([]);
    },
    ALL_CASES_TIMEOUT_MS,
  );

  test(
    'docs/deploy.md announces, for each change, the stacks it updates and every stateful resource it replaces or removes',
    () => {
      // The union over every profile a change applies to.
      const byChange = new Map<string, { updated: Set<string>; lost: Set<string> }>();
      for (const c of cases) {
        const { updated, lost } = outcomeOf(c);
        const all = byChange.get(c.transition.change) ?? {
          updated: new Set<string>(),
          lost: new Set<string>(),
        };
        updated.forEach((s) => all.updated.add(s));
        lost.forEach((l) => all.lost.add(l));
        byChange.set(c.transition.change, all);
      }
      const problems: string[] = [];
      const expectedRows: string[] = [];
      for (const t of TRANSITIONS) {
        const seen = byChange.get(t.change);
        if (seen === undefined) {
          problems.push(`${t.change}: applies to no shipped profile`);
          continue;
        }
        const stacks = [...seen.updated].sort();
        const lost = [...seen.lost].sort();
        expectedRows.push(
          `| ${t.change} | ${stacks.map((s) => `\`${s}\``).join(', ')} | ` +
            `${lost.length === 0 ? 'nothing' : lost.map((l) => `\`${l}\``).join(', ')} | ${t.data} |`,
        );
        const row = docRow(t.change);
        if (row === undefined) {
          problems.push(`${t.change}: no row in docs/deploy.md's "Changing a deployed profile" table`);
          continue;
        }
        const docStacks = [...codeItems(row[1])].sort();
        const docLost = row[2] === 'nothing' ? [] : [...codeItems(row[2])].sort();
        if (JSON.stringify(docStacks) !== JSON.stringify(stacks)) {
          problems.push(
            `${t.change}: docs say it updates ${docStacks.join(', ')}; the plan updates ${stacks.join(', ')}`,
          );
        }
        if (JSON.stringify(docLost) !== JSON.stringify(lost)) {
          problems.push(
            `${t.change}: docs announce [${docLost.join(', ')}] replaced or removed; the plan has [${lost.join(', ')}]`,
          );
        }
        if (row[3] !== t.data)
          problems.push(`${t.change}: docs say "${row[3]}" of the data; expected "${t.data}"`);
      }
      // On failure, the message carries the whole table as the plan gives it, to paste into docs/deploy.md.
      expect(
        problems.length === 0 ? [] : [...problems, '', 'The rows the plan gives:', ...expectedRows],
      ).toEqual([]);
    },
    ALL_CASES_TIMEOUT_MS,
  );
});
