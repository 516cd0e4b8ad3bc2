/**
 * A stand-in for the Index State Management plugin, which no Maven Central artifact provides for the node kfek's
 * tests run (../shared/ENVIRONMENT.md): the REST answers kfek reads and the job that runs each managed index, as
 * opensearch-project/index-management (read at 5078c9a6) implements them:
 *
 * - `PUT _plugins/_ism/policies/<id>` refuses an overwrite without the `_seq_no`/`_primary_term` it holds (409), and
 *   an ISM template whose patterns overlap another policy's at the same priority (400, TransportIndexPolicyAction);
 *   a template sent without `last_updated_time` gets the time of the PUT (ISMTemplate.parse);
 * - the coordinator attaches a new index to the policy whose matching template has the highest priority, among the
 *   templates updated before the index was created (ManagedIndexCoordinator.findMatchingPolicy);
 * - `add` refuses an index that has a policy; `change_policy` records a pending change, safe when the index's state
 *   exists in both versions with the same action types and no state is given (ManagedIndexUtils.isSafeToChange);
 * - a job run initialises an index on the policy's current version, applies a pending change when it is safe or the
 *   index is in its state's transitions (shouldChangePolicy, initChangePolicy), runs a state's actions once (`delete`
 *   deletes the index), and takes the first transition whose `min_index_age` the index has reached (by creation date);
 * - `explain` answers per index with the policy id under both setting names, and the seq_no, primary term and state
 *   once initialised.
 *
 * Indices come from an {@link IsmIndexSource}: a list in memory, or the real node of a test, whose indices the
 * `delete` action then really deletes. Time is the injected clock's, so a test moves days ahead without waiting.
 */
import type { HttpRequest, HttpResponse } from '../../core/opensearch/http';
import { patternsOverlap } from '../../core/opensearch/families';

export interface IsmIndex {
  readonly name: string;
  /** Epoch milliseconds. */
  readonly creationDate: number;
}

export interface IsmIndexSource {
  list(): Promise<readonly IsmIndex[]>;
  delete(name: string): Promise<void>;
}

interface Template {
  readonly index_patterns: string[];
  readonly priority: number;
  readonly last_updated_time: number;
}

interface StoredPolicy {
  readonly policy: Record<string, unknown>;
  readonly seqNo: number;
  readonly primaryTerm: number;
}

interface ManagedIndex {
  policyId: string;
  /** The version the job runs (ManagedIndexConfig.policy); undefined until initialised. */
  running?: StoredPolicy;
  state?: string;
  actionsDone?: boolean;
  change?: { policyId: string; state?: string; isSafe: boolean };
}

interface State {
  readonly name: string;
  readonly actions: ReadonlyArray<Record<string, unknown>>;
  readonly transitions: ReadonlyArray<{ state_name: string; conditions?: { min_index_age?: string } }>;
}

const json = (status: number, body: unknown): HttpResponse => ({ status, body, text: JSON.stringify(body) });
const statesOf = (policy: Record<string, unknown>): State[] => (policy.states as State[] | undefined) ?? [];
const templatesOf = (policy: Record<string, unknown>): Template[] =>
  (policy.ism_template as Template[] | undefined) ?? [];
const UNIT_MILLIS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

function ageMillis(text: string): number {
  const m = /^(\d+)([dhms])$/.exec(text);
  if (m === null) throw new Error(`fake ISM: cannot read min_index_age ${text}`);
  return Number(m[1]) * UNIT_MILLIS[m[2]];
}

function matches(pattern: string, name: string): boolean {
  return patternsOverlap(pattern, name);
}

/** ManagedIndexUtils.isSafeToChange. */
function isSafeToChange(
  current: StoredPolicy | undefined,
  stateName: string | undefined,
  next: StoredPolicy,
  state: string | undefined,
): boolean {
  if (stateName === undefined || current === undefined) return true;
  if (state !== undefined) return false;
  const a = statesOf(current.policy).find((s) => s.name === stateName);
  const b = statesOf(next.policy).find((s) => s.name === stateName);
  if (a === undefined || b === undefined || a.actions.length !== b.actions.length) return false;
  return a.actions.every((action, i) => Object.keys(action)[0] === Object.keys(b.actions[i])[0]);
}

export class FakeIsm {
  readonly policies = new Map<string, StoredPolicy>();
  readonly managed = new Map<string, ManagedIndex>();
  private seqNo = 0;

  constructor(
    private readonly source: IsmIndexSource,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /** The policy an index runs, as explain would say; undefined when unmanaged. */
  policyOf(index: string): string | undefined {
    return this.managed.get(index)?.policyId;
  }

  private async resolve(expression: string): Promise<string[]> {
    const all = (await this.source.list()).map((i) => i.name);
    return [...new Set(expression.split(',').flatMap((p) => all.filter((name) => matches(p, name))))];
  }

  async handle(request: HttpRequest, path: string, params: URLSearchParams): Promise<HttpResponse> {
    const { method } = request;
    if (method === 'GET' && path === '/_plugins/_ism/policies') {
      const size = Number(params.get('size') ?? 20);
      const from = Number(params.get('from') ?? 0);
      const all = [...this.policies].map(([id, p]) => ({
        _id: id,
        _seq_no: p.seqNo,
        _primary_term: p.primaryTerm,
        policy: p.policy,
      }));
      return json(200, { policies: all.slice(from, from + size), total_policies: all.length });
    }
    let m = /^\/_plugins\/_ism\/policies\/([^/]+)$/.exec(path);
    if (m !== null) return this.policy(request, m[1], params);
    m = /^\/_plugins\/_ism\/(add|change_policy|explain|remove)\/([^/]+)$/.exec(path);
    if (m === null) return json(400, { error: `no handler found for uri [${path}] and method [${method}]` });
    const [, action, expression] = m;
    const names = await this.resolve(expression);
    if (action === 'explain' && method === 'GET') return this.explain(names);
    if (method !== 'POST') return json(405, {});
    const body = (request.body ?? {}) as { policy_id?: string; state?: string };
    const failed: Array<{ index_name: string; index_uuid: string; reason: string }> = [];
    const fail = (index_name: string, reason: string): void => {
      failed.push({ index_name, index_uuid: `uuid-${index_name}`, reason });
    };
    if (names.length === 0) return json(404, { error: { type: 'index_not_found_exception' }, status: 404 });
    if (action === 'remove') {
      names.forEach((n) =>
        this.managed.delete(n) ? undefined : fail(n, 'This index does not have a policy to remove'),
      );
      return this.status(names.length - failed.length, failed);
    }
    const target = this.policies.get(String(body.policy_id));
    if (target === undefined) {
      return json(404, {
        error: { type: 'status_exception', reason: `Could not find policy=${body.policy_id}` },
        status: 404,
      });
    }
    for (const name of names) {
      const managed = this.managed.get(name);
      if (action === 'add') {
        if (managed !== undefined)
          fail(name, 'This index already has a policy, use the update policy API to update index policies');
        else this.managed.set(name, { policyId: String(body.policy_id) });
      } else if (managed === undefined) {
        fail(name, 'This index is not being managed');
      } else {
        managed.change = {
          policyId: String(body.policy_id),
          ...(body.state === undefined ? {} : { state: body.state }),
          isSafe: isSafeToChange(managed.running, managed.state, target, body.state),
        };
      }
    }
    return this.status(names.length - failed.length, failed);
  }

  private status(updated: number, failed: unknown[]): HttpResponse {
    return json(200, { updated_indices: updated, failures: failed.length > 0, failed_indices: failed });
  }

  private explain(names: readonly string[]): HttpResponse {
    const out: Record<string, unknown> = {};
    for (const name of names) {
      const m = this.managed.get(name);
      out[name] = {
        'index.plugins.index_state_management.policy_id': m?.policyId ?? null,
        'index.opendistro.index_state_management.policy_id': m?.policyId ?? null,
        ...(m === undefined
          ? {}
          : {
              index: name,
              policy_id: m.policyId,
              ...(m.running === undefined
                ? {}
                : {
                    policy_seq_no: m.running.seqNo,
                    policy_primary_term: m.running.primaryTerm,
                    state: { name: m.state, start_time: this.clock() },
                  }),
            }),
        enabled: m === undefined ? null : true,
      };
    }
    out.total_managed_indices = names.filter((n) => this.managed.has(n)).length;
    return json(200, out);
  }

  private policy(request: HttpRequest, id: string, params: URLSearchParams): HttpResponse {
    const stored = this.policies.get(id);
    if (request.method === 'GET') {
      return stored === undefined
        ? json(404, { error: { type: 'status_exception', reason: 'Policy not found' }, status: 404 })
        : json(200, {
            _id: id,
            _version: 1,
            _seq_no: stored.seqNo,
            _primary_term: stored.primaryTerm,
            policy: stored.policy,
          });
    }
    if (request.method === 'DELETE') {
      if (stored === undefined) {
        return json(404, {
          error: { type: 'status_exception', reason: `Policy ${id} is not found` },
          status: 404,
        });
      }
      this.policies.delete(id);
      return json(200, { _id: id, result: 'deleted' });
    }
    if (request.method !== 'PUT') return json(405, {});
    if (stored !== undefined) {
      if (
        params.get('if_seq_no') !== String(stored.seqNo) ||
        params.get('if_primary_term') !== String(stored.primaryTerm)
      ) {
        return json(409, { error: { type: 'version_conflict_engine_exception' }, status: 409 });
      }
    }
    const given = (request.body as { policy: Record<string, unknown> }).policy;
    const now = this.clock();
    const templates = templatesOf(given).map((t) => ({
      ...t,
      last_updated_time: t.last_updated_time ?? now,
    }));
    for (const t of templates) {
      const conflict = [...this.policies].some(
        ([other, p]) =>
          other !== id &&
          templatesOf(p.policy).some(
            (o) =>
              o.priority === t.priority &&
              o.index_patterns.some((a) => t.index_patterns.some((b) => patternsOverlap(a, b))),
          ),
      );
      if (conflict) {
        const reason =
          `New policy ${id} has an ISM template with index pattern [${t.index_patterns.join(', ')}] matching existing ` +
          `policy templates, please use a different priority than ${t.priority}`;
        return json(400, { error: { type: 'illegal_argument_exception', reason }, status: 400 });
      }
    }
    // ISM stores more than it was given: ids, timestamps and default retry settings on every action.
    const states = statesOf(given).map((s) => ({
      ...s,
      actions: s.actions.map((a) => ({ retry: { count: 3, backoff: 'exponential', delay: '1m' }, ...a })),
    }));
    const policy = {
      policy_id: id,
      last_updated_time: now,
      schema_version: 21,
      error_notification: null,
      ...given,
      states,
      ism_template: templates,
    };
    this.policies.set(id, { policy, seqNo: ++this.seqNo, primaryTerm: 1 });
    return json(stored === undefined ? 201 : 200, { _id: id, policy: { policy } });
  }

  /** One pass of the coordinator's sweep and of every managed index's job. Returns the indices it deleted. */
  async runJobs(): Promise<string[]> {
    const now = this.clock();
    const indices = await this.source.list();
    const byName = new Map(indices.map((i) => [i.name, i]));
    for (const name of this.managed.keys()) if (!byName.has(name)) this.managed.delete(name);
    for (const index of indices) {
      if (this.managed.has(index.name) || index.name.startsWith('.')) continue;
      let best: { id: string; priority: number } | undefined;
      for (const [id, p] of this.policies) {
        for (const t of templatesOf(p.policy)) {
          if (t.last_updated_time >= index.creationDate) continue;
          if (!t.index_patterns.some((pattern) => matches(pattern, index.name))) continue;
          if (best === undefined || t.priority > best.priority) best = { id, priority: t.priority };
        }
      }
      if (best !== undefined) this.managed.set(index.name, { policyId: best.id });
    }
    const deleted: string[] = [];
    for (const [name, m] of [...this.managed]) {
      const index = byName.get(name);
      if (index === undefined) continue;
      if (m.running === undefined) {
        const target = this.policies.get(m.change?.policyId ?? m.policyId);
        if (target === undefined) continue;
        m.policyId = m.change?.policyId ?? m.policyId;
        m.running = target;
        m.state = m.change?.state ?? String(target.policy.default_state);
        m.actionsDone = false;
        m.change = undefined;
        continue;
      }
      const state = statesOf(m.running.policy).find((s) => s.name === m.state);
      const inTransitions = m.actionsDone === true || (state?.actions.length ?? 0) === 0;
      if (m.change !== undefined && (m.change.isSafe || inTransitions)) {
        const target = this.policies.get(m.change.policyId);
        if (target !== undefined) {
          m.policyId = m.change.policyId;
          m.running = target;
          if (m.change.state !== undefined) {
            m.state = m.change.state;
            m.actionsDone = false;
          }
        }
        m.change = undefined;
        continue;
      }
      if (state === undefined) continue;
      if (!inTransitions) {
        if (state.actions.some((a) => 'delete' in a)) {
          await this.source.delete(name);
          this.managed.delete(name);
          deleted.push(name);
          continue;
        }
        m.actionsDone = true;
        continue;
      }
      const next = state.transitions.find(
        (t) =>
          t.conditions?.min_index_age === undefined ||
          now - index.creationDate >= ageMillis(t.conditions.min_index_age),
      );
      if (next !== undefined) {
        m.state = next.state_name;
        m.actionsDone = false;
      }
    }
    return deleted;
  }
}
