/**
 * The retention side of a deploy (issue 30): each family's ISM policy, and which policy manages each existing index.
 * A changed retention reaches the indices ISM already manages: ISM keeps an index on the policy version it started
 * with until `change_policy` moves it (applied at the index's next job run, since kfek's `hot` state has no
 * actions: test/helpers/fake-ism.ts says how the plugin decides). A retired family's policy is left as it is, so its
 * indices are deleted on the schedule they had. Pure, like domain-plan-indices.ts.
 */
import type { Impact } from '../contracts/impact';
import type { DomainChange, PlannedRequest } from './domain-change';
import type { Families, Family } from './domain-families';
import { asIndexFamily, describeFamily, handEdit, plural } from './domain-plan-indices';
import { sameContent } from './drift';
import { chunkNames, name, type NameSegment, requestPath } from './request-path';
import type { DomainState, IndexState, StoredPolicy } from './domain-state';
import { buildIsmPolicy, type IsmPolicyBody } from './ism-policy';
import { record } from './provision-client';
import { editedByHand } from './registry-changes';
import { indexFamilies, type OpenSearchSpec } from './spec';

/** `min_index_age` days of the delete transition of a stored policy; undefined when not found. */
export function deleteAfterDaysOf(policy: Record<string, unknown>): number | undefined {
  for (const state of Array.isArray(policy.states) ? policy.states : []) {
    for (const t of Array.isArray(record(state).transitions)
      ? (record(state).transitions as unknown[])
      : []) {
      if (record(t).state_name !== 'delete') continue;
      const age = /^(\d+)d$/.exec(String(record(record(t).conditions).min_index_age));
      if (age !== null) return Number(age[1]);
    }
  }
  return undefined;
}

const DAY = 86_400_000;

function retentionImpact(
  family: Family,
  stored: StoredPolicy | undefined,
  desired: IsmPolicyBody,
  now: number,
): { impact: Impact; detail: string; fix?: string } {
  const after = deleteAfterDaysOf(desired.policy) ?? 0;
  const before = stored === undefined ? undefined : deleteAfterDaysOf(stored.policy);
  const n = family.indices.length;
  if (before === undefined || before === after) {
    return { impact: 'change', detail: `${describeFamily(family)}: delete after ${after} days` };
  }
  if (after > before) {
    return {
      impact: 'keeps-longer',
      detail: `${describeFamily(family)}: delete after ${after} days instead of ${before}; ${plural(n, 'existing index')} move to the new schedule (ISM change_policy)`,
    };
  }
  const gone = family.indices.filter((i) => now - i.creationDate >= after * DAY).length;
  return {
    impact: n === 0 ? 'change' : 'loses-data',
    detail:
      `${describeFamily(family)}: delete after ${after} days instead of ${before}; ${plural(n, 'existing index')} ` +
      `are deleted up to ${before - after} days sooner` +
      (gone === 0 ? '' : `, ${plural(gone, 'index')} already older than that at ISM's next run`),
    fix: `if the logs must stay, keep the retention at ${before} days (or snapshot the indices first)`,
  };
}

/** A retired family's policy: left as it is, so its indices are deleted on the schedule they had. */
function retiredPolicy(family: Family, stored: StoredPolicy | undefined): DomainChange {
  return {
    kind: 'ism-policy',
    name: family.policyId,
    action: 'keep',
    impact: stored === undefined ? 'none' : 'kept',
    detail:
      stored === undefined
        ? `${describeFamily(family)} has no retention policy: its indices stay until deleted by hand`
        : `kept unchanged: deletes the ${plural(family.indices.length, 'index')} of ${family.stem}-* on the schedule they had (${deleteAfterDaysOf(stored.policy) ?? '?'} days)`,
    requests: [],
  };
}

/** The write of a current family's policy that differs from what is stored, with what its retention change costs. */
function policyWrite(
  state: DomainState,
  family: Family,
  stored: StoredPolicy | undefined,
  desired: IsmPolicyBody,
  now: number,
  previous: OpenSearchSpec | undefined,
): DomainChange {
  const path = (query?: Record<string, number>): string =>
    requestPath(['_plugins', '_ism', 'policies', name('ISM policy', family.policyId)], query);
  const retention = retentionImpact(family, stored, desired, now);
  const before = previous && indexFamilies(previous).find((f) => f.stem === family.stem);
  const edited =
    stored !== undefined &&
    editedByHand(
      state,
      'ism-policy',
      family.policyId,
      stored.policy,
      () =>
        previous !== undefined &&
        before !== undefined &&
        !sameContent('ism-policy', stored.policy, buildIsmPolicy(previous, before).policy),
    );
  // The retention a hand edit lengthened is kept by putting it in the profile, not by leaving the domain alone.
  const fix =
    edited && retention.fix !== undefined
      ? `the longer retention was set by hand: to keep it, put it in the profile (${family.route === undefined ? 'openSearch.retention.deleteAfterDays' : `the route's retentionDays`}), or snapshot the indices first`
      : retention.fix;
  // Restoring a hand edit that kept indices longer deletes them sooner: that cost stays the headline.
  const impact: Impact = edited && retention.impact !== 'loses-data' ? 'drift' : retention.impact;
  return {
    kind: 'ism-policy',
    name: family.policyId,
    action: stored === undefined ? 'create' : 'update',
    impact,
    detail: edited
      ? `${retention.detail}; ${handEdit('ism-policy', stored?.policy, desired.policy)}`
      : retention.detail,
    ...(fix === undefined ? {} : { fix }),
    requests: [
      {
        method: 'PUT',
        // ISM refuses an overwrite without the optimistic-concurrency pair from the listing.
        path:
          stored === undefined
            ? path()
            : path({ if_seq_no: stored.seqNo, if_primary_term: stored.primaryTerm }),
        body: desired,
        ok: [200, 201],
      },
    ],
  };
}

export function planPolicies(
  spec: OpenSearchSpec,
  families: Families,
  state: DomainState,
  now: number,
  /** The previous deploy's spec: tells a hand edit on a domain without kfek's record. @default - none */
  previous?: OpenSearchSpec,
): DomainChange[] {
  if (!state.features.ism) {
    return [
      {
        kind: 'ism-policy',
        name: '',
        action: 'skip',
        impact: 'none',
        detail: 'no ISM plugin on the target',
        requests: [],
      },
    ];
  }
  const changes: DomainChange[] = [];
  const updated = new Map<string, IsmPolicyBody>();
  for (const family of families.kept) {
    const stored = state.policies.get(family.policyId);
    if (!family.current) {
      changes.push(retiredPolicy(family, stored));
      continue;
    }
    const desired = buildIsmPolicy(spec, asIndexFamily(spec, family));
    // Content, not the description's hash: an edit that kept the description is still a difference (issue 39).
    const same = stored !== undefined && sameContent('ism-policy', stored.policy, desired.policy);
    if (same) {
      const { detail } = retentionImpact(family, stored, desired, now);
      changes.push({
        kind: 'ism-policy',
        name: family.policyId,
        action: 'unchanged',
        impact: 'none',
        detail,
        requests: [],
      });
      continue;
    }
    updated.set(family.policyId, desired);
    changes.push(policyWrite(state, family, stored, desired, now, previous));
  }
  changes.push(...planManagedIndices(families, state, updated));
  return changes;
}

/** Which policy manages each existing index: attach the unmanaged, move the others onto their family's policy. */
function planManagedIndices(
  families: Families,
  state: DomainState,
  updated: ReadonlyMap<string, IsmPolicyBody>,
): DomainChange[] {
  const changes: DomainChange[] = [];
  for (const family of families.kept) {
    const policyExists = state.policies.has(family.policyId) || updated.has(family.policyId);
    if (!policyExists) continue;
    const statesOf = (id: string): Set<string> => {
      const body = updated.get(id)?.policy ?? state.policies.get(id)?.policy ?? {};
      const states = (body as { states?: unknown }).states;
      return new Set((Array.isArray(states) ? states : []).map((s) => String(record(s).name)));
    };
    const add: string[] = [];
    const move: IndexState[] = [];
    const foreign: string[] = [];
    for (const index of family.indices) {
      const m = index.managed;
      if (m === undefined) continue;
      if (m.policyId === null) add.push(index.name);
      else if (!family.current) continue;
      else if (!state.policies.has(m.policyId) && m.policyId !== family.policyId)
        foreign.push(`${index.name} (${m.policyId})`);
      else if (m.policyId !== family.policyId) move.push(index);
      else if (
        m.policySeqNo !== undefined &&
        (updated.has(family.policyId) || m.policySeqNo !== state.policies.get(family.policyId)?.seqNo)
      ) {
        move.push(index);
      }
    }
    const requests: PlannedRequest[] = [];
    for (const path of chunkNames('index', add, (list) => requestPath(['_plugins', '_ism', 'add', list]))) {
      requests.push({
        method: 'POST',
        path,
        body: { policy_id: family.policyId },
        ok: [200],
      });
    }
    const wanted = statesOf(family.policyId);
    // An index whose state the new version lacks (a warm phase removed) is sent to `hot`, which it then leaves by age.
    const keepState = move.filter((i) => i.managed?.state === undefined || wanted.has(i.managed.state));
    const toHot = move.filter((i) => !keepState.includes(i));
    for (const [group, body] of [
      [keepState, { policy_id: family.policyId }],
      [toHot, { policy_id: family.policyId, state: 'hot' }],
    ] as const) {
      const render = (list: NameSegment): string => requestPath(['_plugins', '_ism', 'change_policy', list]);
      for (const path of chunkNames(
        'index',
        group.map((i) => i.name),
        render,
      )) {
        requests.push({
          method: 'POST',
          path,
          body,
          ok: [200],
        });
      }
    }
    const parts = [
      add.length === 0 ? '' : `attach ${plural(add.length, 'unmanaged index')}`,
      move.length === 0 ? '' : `move ${plural(move.length, 'index')} to the current version (change_policy)`,
      foreign.length === 0 ? '' : `left alone, managed by a policy kfek does not own: ${foreign.join(', ')}`,
    ].filter((p) => p !== '');
    if (parts.length === 0) continue;
    changes.push({
      kind: 'ism-indices',
      name: `${family.stem}-*`,
      action: requests.length === 0 ? 'keep' : 'update',
      impact: requests.length === 0 ? 'kept' : 'change',
      detail: `${parts.join('; ')} (${family.policyId})`,
      requests,
    });
  }
  return changes;
}
