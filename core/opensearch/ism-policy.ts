import { ismPriority } from './families';
import { contentHash, defaultFamily, type IndexFamily, type OpenSearchSpec } from './spec';

/**
 * The Index State Management retention policy (`PUT _plugins/_ism/policies/<id>`), documented at
 * https://docs.opensearch.org/latest/im-plugin/ism/policies/ .
 *
 * States: `hot` -> (`warm` after warmAfterDays, only when configured) -> `delete` after deleteAfterDays.
 * `min_index_age` counts from the index creation date, which for a daily index is the day it covers, so an index
 * is deleted deleteAfterDays after its day started.
 *
 * `ism_template` attaches the policy to every NEW index matching the pattern (ISM only does this at index
 * creation); indices that existed before the policy are attached by the provisioner with `_plugins/_ism/add`.
 *
 * The warm state uses Amazon OpenSearch Service's `warm_migration` action (UltraWarm); it exists only there and
 * only on domains with warm nodes, so keep `warmAfterDays` unset otherwise.
 */

/** Marker in the policy description carrying the content hash, so re-applying identical content is a no-op. */
export const POLICY_HASH_MARKER = 'kfek-content-sha256:';

export interface IsmPolicyBody {
  readonly policy: {
    readonly description: string;
    readonly default_state: string;
    readonly states: ReadonlyArray<{
      readonly name: string;
      readonly actions: ReadonlyArray<Record<string, unknown>>;
      readonly transitions: ReadonlyArray<{
        readonly state_name: string;
        readonly conditions: { readonly min_index_age: string };
      }>;
    }>;
    readonly ism_template: ReadonlyArray<{
      readonly index_patterns: readonly string[];
      readonly priority: number;
    }>;
  };
}

/** The content without the hash marker; hashed into the description by {@link buildIsmPolicy}. */
function policyContent(
  family: IndexFamily,
): Omit<IsmPolicyBody['policy'], 'description'> & { summary: string } {
  const { deleteAfterDays, warmAfterDays } = family.retention;
  const deleteState = { name: 'delete', actions: [{ delete: {} }], transitions: [] };
  const toDelete = { state_name: 'delete', conditions: { min_index_age: `${deleteAfterDays}d` } };
  const states =
    warmAfterDays === undefined
      ? [{ name: 'hot', actions: [], transitions: [toDelete] }, deleteState]
      : [
          {
            name: 'hot',
            actions: [],
            transitions: [{ state_name: 'warm', conditions: { min_index_age: `${warmAfterDays}d` } }],
          },
          { name: 'warm', actions: [{ warm_migration: {} }], transitions: [toDelete] },
          deleteState,
        ];
  return {
    summary:
      `kfek retention for ${family.indexPattern}: ` +
      (warmAfterDays === undefined ? '' : `warm after ${warmAfterDays} days, `) +
      `delete after ${deleteAfterDays} days.`,
    default_state: 'hot',
    states,
    // Priority decides between several ISM templates matching one new index: the longest stem wins (families.ts).
    ism_template: [{ index_patterns: [family.indexPattern], priority: ismPriority(family.stem) }],
  };
}

/**
 * The full `PUT _plugins/_ism/policies/<family.names.ismPolicy>` body, for the default route's indices or a route's.
 * Policies whose patterns overlap (`logs-*`, `logs-audit-*`) have different priorities: the longer stem wins.
 */
export function buildIsmPolicy(
  spec: OpenSearchSpec,
  family: IndexFamily = defaultFamily(spec),
): IsmPolicyBody {
  const { summary, ...content } = policyContent(family);
  return {
    policy: {
      description: `${summary} ${POLICY_HASH_MARKER}${contentHash(content)}`,
      ...content,
    },
  };
}

/**
 * Whether an existing policy (the `policy` object of `GET _plugins/_ism/policies/<id>`) already has this content.
 * OpenSearch adds defaults (retry settings, timestamps, schema version) to stored policies, so the comparison uses
 * the hash kfek wrote into the description instead of a deep compare.
 */
export function isSamePolicy(existing: unknown, desired: IsmPolicyBody): boolean {
  if (existing === null || typeof existing !== 'object') {
    return false;
  }
  const description = (existing as { description?: unknown }).description;
  return typeof description === 'string' && description === desired.policy.description;
}
