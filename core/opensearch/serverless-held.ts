/**
 * A collection or policy the account already holds under a name the deploy gives, compared with what the deploy
 * would create (core/opensearch/serverless-plan.ts builds those documents from the template). `kfek doctor`
 * (cli/doctor/serverless-names.ts) renders the answer; the decision is here, beside the plan it compares against,
 * so every reader of a held name judges it the same way (STYLE 20). Pure.
 *
 * What matters: a collection's type and group; a policy's rules, and for a data access policy not its principals,
 * which the template names by token (a role's ARN) and the account by ARN.
 */
import { canonicalJson } from '../canonical-json';
import { isObject } from '../json';
import type { CollectionPlan } from './serverless-plan';

/** A name a serverless profile's deploy gives: the collection's, or a policy's (by its type). */
export interface ServerlessName {
  readonly kind: 'collection' | 'encryption' | 'network' | 'data';
  readonly name: string;
}

/** The names a deploy of `plan` gives the collection and its policies. */
export function serverlessNamesOf(plan: CollectionPlan): ServerlessName[] {
  const policyKinds = new Set<string>(['encryption', 'network', 'data']);
  return [
    { kind: 'collection', name: plan.name },
    ...plan.policies
      .filter((p) => policyKinds.has(p.type))
      .map((p): ServerlessName => ({ kind: p.type as ServerlessName['kind'], name: p.name })),
  ];
}

/**
 * The value with every array of scalars sorted, at any depth: a policy's `Resource` and `Permission` lists are sets,
 * so their order says nothing. Written with {@link canonicalJson}, equal for documents that say the same.
 */
function setsSorted(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(setsSorted);
    const scalars = value.every((v) => !isObject(v) && !Array.isArray(v));
    return scalars ? items.sort((a, b) => (canonicalJson(a) < canonicalJson(b) ? -1 : 1)) : items;
  }
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, setsSorted(v)]));
  return value;
}

const canonical = (value: unknown): string => canonicalJson(setsSorted(value));

/** A data access policy's rules without who they are for (a description is a mark anyone can copy, too). */
function rulesOnly(document: unknown): unknown {
  return Array.isArray(document)
    ? document
        .map((s): unknown => (isObject(s) ? s.Rules : s))
        .sort((a, b) => (canonical(a) < canonical(b) ? -1 : 1))
    : document;
}

/**
 * How what the account holds under `n` differs from what a deploy of `plan` would create; empty when it is the same.
 * `content` is a collection's `{ type, group }` or a policy's document.
 */
export function heldDifferences(n: ServerlessName, content: unknown, plan: CollectionPlan): string[] {
  if (n.kind === 'collection') {
    const live = isObject(content) ? content : {};
    const text = (v: unknown): string => (typeof v === 'string' ? v : 'unknown');
    const out: string[] = [];
    if (live.type !== plan.type) out.push(`its type is ${text(live.type)}, kfek's is ${plan.type}`);
    if (live.group !== undefined && live.group !== plan.group?.name) {
      out.push(`it is in collection group ${text(live.group)}, kfek's is ${plan.group?.name ?? 'none'}`);
    }
    return out;
  }
  const planned = plan.policies.find((p) => p.name === n.name && p.type === n.kind)?.document;
  const same =
    n.kind === 'data'
      ? canonical(rulesOnly(content)) === canonical(rulesOnly(planned))
      : canonical(content) === canonical(planned);
  return same ? [] : ['its rules are not the ones kfek renders for it'];
}
