/**
 * One stack update at resource level: which resources CloudFormation adds, modifies, replaces and deletes.
 *
 * A resource is replaced when its type changes, when a create-only property's value changes (the resource
 * schemas' `createOnlyProperties`), when a create-only property refers to a resource that is itself replaced (its
 * physical id or attributes change with it; followed to a fixed point), and for an OpenSearch or Elasticsearch
 * domain whose engine version changes without `UpdatePolicy.EnableVersionUpgrade` (CloudFormation User Guide,
 * "UpdatePolicy attribute": without it, CloudFormation replaces the domain to change its version).
 */
import { canonicalJson } from '../canonical-json';
import { isCustomType, schemaOf } from './schema-table';
import { deletionRisk, isStateful, replacementRisk } from './stateful';
import { keeps, referencedAmong, resourcesOf, valueAt } from './template';
import type { CfnResource, CfnTemplate, ChangePlan, Deletion, Replacement, StackPlan } from './types';

/** Domain types whose version property is changed in place only with `UpdatePolicy.EnableVersionUpgrade`. */
const VERSIONED_DOMAINS: Readonly<Record<string, string>> = {
  'AWS::OpenSearchService::Domain': 'EngineVersion',
  'AWS::Elasticsearch::Domain': 'ElasticsearchVersion',
};

/** One stack's part of the plan, and the logical ids it replaces (for the export simulation). */
export interface StackResourceChanges
  extends
    Pick<StackPlan, 'added' | 'removed' | 'modified'>,
    Pick<ChangePlan, 'replacements' | 'deletions' | 'unknownTypes'> {
  readonly replaced: ReadonlySet<string>;
}

function directReasons(before: CfnResource, after: CfnResource): string[] {
  if (before.Type !== after.Type) return [`type changed from ${before.Type} to ${after.Type}`];
  const reasons: string[] = [];
  for (const pointer of schemaOf(after.Type)?.createOnly ?? []) {
    if (
      canonicalJson(valueAt(before.Properties, pointer)) !== canonicalJson(valueAt(after.Properties, pointer))
    ) {
      reasons.push(`create-only property ${pointer} changed`);
    }
  }
  const version = VERSIONED_DOMAINS[after.Type];
  const from = version === undefined ? undefined : before.Properties?.[version];
  const to = version === undefined ? undefined : after.Properties?.[version];
  const upgrade = after.UpdatePolicy?.EnableVersionUpgrade;
  if (canonicalJson(from) !== canonicalJson(to) && upgrade !== true && upgrade !== 'true') {
    reasons.push(
      `${version} changed from ${canonicalJson(from)} to ${canonicalJson(to)} without UpdatePolicy.EnableVersionUpgrade`,
    );
  }
  return reasons;
}

/**
 * CloudFormation cannot create the replacement while the old resource holds the name: every name property is set
 * and keeps its value.
 */
function keepsCustomName(before: CfnResource, after: CfnResource): boolean {
  const names = before.Type === after.Type ? (schemaOf(after.Type)?.names ?? []) : [];
  return (
    names.length > 0 &&
    names.every((pointer) => {
      const value = valueAt(after.Properties, pointer);
      return (
        value !== undefined && canonicalJson(value) === canonicalJson(valueAt(before.Properties, pointer))
      );
    })
  );
}

/** Compares a stack's deployed template with its new one. */
export function resourceChanges(
  stackName: string,
  beforeTemplate: CfnTemplate | undefined,
  afterTemplate: CfnTemplate,
): StackResourceChanges {
  const before = resourcesOf(beforeTemplate);
  const after = resourcesOf(afterTemplate);
  const kept = Object.keys(after).filter((id) => Object.hasOwn(before, id));
  const reasons = new Map<string, string[]>();
  for (const id of kept) {
    if (isCustomType(after[id].Type) && before[id].Type === after[id].Type) continue;
    const direct = directReasons(before[id], after[id]);
    if (direct.length > 0) reasons.set(id, direct);
  }
  // A replaced resource gets a new physical id and new attributes: whatever reads them in a create-only property
  // is replaced too, and so on.
  for (let grew = true; grew;) {
    grew = false;
    const replaced = new Set(reasons.keys());
    for (const id of kept) {
      const type = after[id].Type;
      if (reasons.has(id) || isCustomType(type)) continue;
      for (const pointer of schemaOf(type)?.createOnly ?? []) {
        for (const target of referencedAmong(valueAt(after[id].Properties, pointer), replaced)) {
          const list = reasons.get(id) ?? [];
          list.push(`create-only property ${pointer} refers to ${target}, which is replaced`);
          reasons.set(id, list);
          grew = true;
        }
      }
    }
  }
  const replacements = [...reasons].map(([logicalId, why]): Replacement => {
    const type = after[logicalId].Type;
    const oldRetained = keeps(before[logicalId].UpdateReplacePolicy);
    return {
      stackName,
      logicalId,
      type,
      reasons: why,
      stateful: isStateful(before[logicalId].Type),
      refused: keepsCustomName(before[logicalId], after[logicalId]),
      oldRetained,
      dataAtRisk: replacementRisk(before[logicalId].Type, oldRetained),
    };
  });
  const removed = Object.keys(before).filter((id) => !Object.hasOwn(after, id));
  const deletions = removed.map((logicalId): Deletion => {
    const { Type: type, DeletionPolicy: policy } = before[logicalId];
    const retained = keeps(policy);
    return {
      stackName,
      logicalId,
      type,
      stateful: isStateful(type),
      retained,
      dataAtRisk: deletionRisk(type, retained),
    };
  });
  return {
    added: Object.keys(after).filter((id) => !Object.hasOwn(before, id)),
    removed,
    modified: kept.filter((id) => canonicalJson(before[id]) !== canonicalJson(after[id])),
    replacements,
    deletions,
    replaced: new Set(reasons.keys()),
    unknownTypes: unknownTypesOf(afterTemplate),
  };
}

/** Resource types of the template that are neither in the schema table nor custom resources. */
export function unknownTypesOf(template: CfnTemplate): string[] {
  const types = Object.values(resourcesOf(template)).map((r) => r.Type);
  return [...new Set(types)].filter((t) => !isCustomType(t) && schemaOf(t) === undefined);
}
