/**
 * What the deploy will do inside OpenSearch (issue 30.7), before it happens: the provisioner's own planner
 * (core/opensearch/domain-plan.ts) run on the spec the synthesized template carries, against the domain as it is
 * (read signed as the caller), or, when the domain cannot be read, against what the deployed template's spec made
 * the provisioner write. Its changes are grouped by impact, worst first, each group one finding with the fixes;
 * what an impact means (its status, its title) is the impact table's (core/contracts/impact.ts): a change that loses
 * data or access, or that OpenSearch would refuse, fails the doctor. Pure.
 */
import { type ShardBudget, shardBudget, SYSTEM_SHARD_RESERVE } from '../../core/config';
import type { IndexRotation } from '../../core/contracts/index-naming';
import { IMPACT_ORDER, IMPACTS, type Severity } from '../../core/contracts/impact';
import type { DomainChange } from '../../core/opensearch/domain-change';
import { stepOf } from '../../core/opensearch/domain-apply';
import { planDomain } from '../../core/opensearch/domain-plan';
import { stateFromSpec } from '../../core/opensearch/domain-read';
import type { DomainState } from '../../core/opensearch/domain-state';
import { indexFamilies, type OpenSearchSpec } from '../../core/opensearch/spec';
import {
  indexRotationOf,
  outputReferences,
  provisionerSpecOf,
} from '../../core/change-plan/provisioner-spec';
import { type DoctorFacts, type Finding, skip, type Status } from './model';
import type { ProfilePlan } from './plan';

/** How a finding shows an impact's severity (core/contracts/impact.ts); a quiet one gets no finding of its own. */
const STATUS: Readonly<Record<Exclude<Severity, 'quiet'>, Status>> = {
  fail: 'fail',
  warn: 'warn',
  notice: 'ok',
};

/** The spec the synthesized Pipeline template applies and the one the deployed template applied. */
export function domainSpecs(
  facts: DoctorFacts,
  plan: ProfilePlan,
): { spec?: OpenSearchSpec; previous?: OpenSearchSpec; rotation?: string } {
  const pipeline = plan.stacks.find((s) => s.id === 'Pipeline');
  if (pipeline === undefined) return {};
  const deployed =
    facts.deployedTemplates?.ok === true
      ? facts.deployedTemplates.value.find((d) => d.stackName === pipeline.stackName)?.template
      : undefined;
  const outputs =
    facts.stacks?.ok === true
      ? (facts.stacks.value.find((s) => s.stackName === pipeline.stackName)?.outputs ?? {})
      : {};
  const refs = outputReferences(deployed ?? pipeline.template, outputs);
  const spec = provisionerSpecOf(pipeline.template, refs);
  const previous = provisionerSpecOf(deployed, refs);
  const rotation = indexRotationOf(pipeline.template);
  return {
    ...(spec === undefined ? {} : { spec }),
    ...(previous === undefined ? {} : { previous }),
    ...(rotation === undefined ? {} : { rotation }),
  };
}

function budgetOf(
  spec: OpenSearchSpec,
  rotation: string | undefined,
  dataNodes: number,
): ShardBudget | undefined {
  if (rotation === undefined || rotation === 'NoRotation') return undefined;
  return shardBudget({
    rotation: rotation as Exclude<IndexRotation, 'NoRotation'>,
    shards: spec.indexTemplate.shards,
    replicas: spec.indexTemplate.replicas,
    dataNodes,
    families: indexFamilies(spec).map((f) => ({ stem: f.stem, retentionDays: f.retention.deleteAfterDays })),
  });
}

function checkShards(
  spec: OpenSearchSpec,
  rotation: string | undefined,
  plan: ProfilePlan,
  state?: DomainState,
): Finding {
  const budget = budgetOf(spec, rotation, plan.domain?.instanceCount ?? 1);
  if (budget === undefined) return skip('domain-shards', 'not checked: no index rotation in the template');
  const now =
    state === undefined
      ? ''
      : `${state.indices.reduce((n, i) => n + i.primaryShards * (1 + i.replicas), 0)} shards in the log indices now; `;
  const finding =
    `${now}${budget.total} once every retention is reached (${budget.families.map((f) => `${f.stem}-*: ${f.shards}`).join(', ')}, ` +
    `${SYSTEM_SHARD_RESERVE} for OpenSearch's own indices) of the ${budget.limit} the data nodes hold`;
  const fix =
    'rotate less often, shorten retentions, use fewer shards or replicas, or add data nodes (openSearch.dataNodeCount)';
  if (budget.total > budget.limit) return { check: 'domain-shards', status: 'fail', finding, fix };
  if (budget.total > budget.limit * 0.8) return { check: 'domain-shards', status: 'warn', finding, fix };
  return { check: 'domain-shards', status: 'ok', finding };
}

/** One finding per impact, worst first, with the impact's severity and title; a change is one line of it. */
function impactFindings(changes: readonly DomainChange[]): Finding[] {
  const out: Finding[] = [];
  for (const impact of IMPACT_ORDER) {
    const { severity, title } = IMPACTS[impact];
    const group = changes.filter((c) => c.impact === impact);
    if (severity === 'quiet' || group.length === 0) continue;
    const fixes = [...new Set(group.flatMap((c) => (c.fix === undefined ? [] : [c.fix])))];
    out.push({
      check: `domain-${impact}`,
      status: STATUS[severity],
      finding: `${title}: ${group.map((c) => `${stepOf(c).step}${c.detail === undefined ? '' : ` (${c.detail})`}`).join('; ')}`,
      ...(fixes.length === 0 ? {} : { fix: fixes.join('; ') }),
    });
  }
  return out;
}

export function checkDomain(facts: DoctorFacts, plan: ProfilePlan | undefined): readonly Finding[] {
  if (plan === undefined) return [skip('domain', 'not checked: needs a synthesized profile')];
  const { spec, previous, rotation } = domainSpecs(facts, plan);
  if (spec === undefined) return [skip('domain', 'not checked: the profile has no OpenSearch provisioner')];
  const now = facts.now ?? Date.now();
  const read = facts.domain;
  const state =
    read?.ok === true ? read.value : previous === undefined ? undefined : stateFromSpec(previous, now);
  const shards = checkShards(spec, rotation, plan, read?.ok === true ? read.value : undefined);
  if (state === undefined) {
    return [
      {
        check: 'domain',
        status: 'ok',
        finding: `not deployed yet: the first deploy creates ${indexFamilies(spec).length} families of indices' template, retention policy and reader role`,
      },
      shards,
    ];
  }
  const domainPlan = planDomain(spec, state, { now, ...(previous === undefined ? {} : { previous }) });
  const changes = domainPlan.changes.filter((c) => c.action !== 'unchanged');
  const source =
    read?.ok === true
      ? `read from the domain (OpenSearch ${read.value.version})`
      : `planned from the deployed template's spec, since the domain could not be read` +
        (read === undefined ? '' : ` (${read.error})`) +
        ': hand edits, real indices and objects of older deploys are not seen';
  const counts = (['create', 'update', 'delete', 'keep'] as const)
    .map((a) => [a, changes.filter((c) => c.action === a).length] as const)
    .filter(([, n]) => n > 0)
    .map(([a, n]) => `${n} to ${a}`);
  const head: Finding = {
    check: 'domain',
    status: read !== undefined && !read.ok ? 'warn' : 'ok',
    finding: `inside OpenSearch, ${source}: ${counts.length === 0 ? 'no change' : counts.join(', ')}`,
    ...(read !== undefined && !read.ok
      ? {
          fix: 'map yourself to all_access (openSearch.access.adminBackendRoles) to let the doctor read the domain',
        }
      : {}),
  };
  return [head, ...impactFindings(changes), shards];
}
