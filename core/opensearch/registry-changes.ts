/**
 * kfek's record (registry.ts) across a deploy: the hash it holds for an object, whether a live object is a hand edit,
 * and the record before and after the plan's changes. Apart from registry.ts because it reads the domain's state
 * (domain-state.ts), which itself reads the record through registry.ts.
 */
import type { DomainChange } from './domain-change';
import type { DomainState } from './domain-state';
import { type OwnedKind, ownedHash } from './drift';
import { registryKey } from './registry';

/** The record's hash of an object, when the record names it. */
export function recordedHash(state: DomainState, kind: OwnedKind, name: string): string | undefined {
  return state.registry?.objects.get(registryKey(kind, name));
}

/**
 * A hand edit: the record holds what kfek wrote, and the live content is no longer that. On a domain without the
 * record (deployed before it), `differsFromPrevious` says whether the live object is neither what the previous
 * deploy's spec rendered; without a previous spec nothing is called a hand edit (it is still restored).
 */
export function editedByHand(
  state: DomainState,
  kind: OwnedKind,
  name: string,
  live: unknown,
  differsFromPrevious?: () => boolean,
): boolean {
  const recorded = recordedHash(state, kind, name);
  if (recorded !== undefined) return recorded !== ownedHash(kind, live);
  return state.registry === undefined && (differsFromPrevious?.() ?? false);
}

const OWNED_KIND: Partial<Record<DomainChange['kind'], OwnedKind>> = {
  'index-template': 'index-template',
  'ingest-pipeline': 'ingest-pipeline',
  'ism-policy': 'ism-policy',
  'security-role': 'security-role',
};

/** The live objects kfek owns, with the hash the record has for each (or of its live content, for one adopted). */
function liveRecord(state: DomainState): Map<string, string> {
  const out = new Map<string, string>();
  const add = (kind: OwnedKind, name: string, live: unknown): void => {
    out.set(registryKey(kind, name), recordedHash(state, kind, name) ?? ownedHash(kind, live));
  };
  for (const [name, t] of state.templates) add('index-template', name, t.body);
  for (const [name, p] of state.pipelines) add('ingest-pipeline', name, p);
  for (const [name, p] of state.policies) add('ism-policy', name, p.policy);
  for (const [name, r] of state.roles) add('security-role', name, r);
  // Saved objects are overwritten on every deploy, so their content is never compared: the hash is of the key.
  for (const key of state.savedObjects ?? []) add('saved-object', key, key);
  // What was not read this time (a plugin not detected, Dashboards not answering) stays recorded as it was.
  const unread: OwnedKind[] = [
    ...(state.features.ism ? [] : ['ism-policy' as const]),
    ...(state.features.security ? [] : ['security-role' as const]),
    ...(state.savedObjects === undefined ? ['saved-object' as const] : []),
  ];
  for (const [key, hash] of state.registry?.objects ?? []) {
    if (unread.some((k) => key.startsWith(`${k}:`))) out.set(key, hash);
  }
  return out;
}

/**
 * kfek's record after the given changes: every object it owns, minus those deleted, with the hash of what it wrote
 * for those written. `applied` says which changes took effect (all of them for the record written before the deploy
 * acts, so an object is recorded before it exists and a deploy that fails halfway leaves nothing unrecorded).
 */
export function recordAfter(
  state: DomainState,
  changes: readonly DomainChange[],
  applied: (change: DomainChange) => boolean = () => true,
): Map<string, string> {
  const out = liveRecord(state);
  for (const change of changes.filter(applied)) {
    if (change.kind === 'saved-objects') {
      if (change.action === 'delete') out.delete(registryKey('saved-object', change.name));
      for (const r of change.requests) {
        if (r.method !== 'POST' || !Array.isArray(r.body)) continue;
        for (const o of r.body as Array<{ type: string; id: string }>) {
          const key = `${o.type}/${o.id}`;
          out.set(registryKey('saved-object', key), ownedHash('saved-object', key));
        }
      }
      continue;
    }
    const kind = OWNED_KIND[change.kind];
    if (kind === undefined || change.name === '') continue;
    const key = registryKey(kind, change.name);
    if (change.action === 'delete') {
      out.delete(key);
      continue;
    }
    const written = change.requests.find((r) => r.method === 'PUT' && r.body !== undefined);
    if (written !== undefined) out.set(key, ownedHash(kind, written.body));
    else if (change.action === 'unchanged' && out.has(key)) {
      // Live is what the profile renders: that is what kfek wrote.
      out.set(key, ownedHash(kind, liveContent(state, kind, change.name)));
    }
  }
  return out;
}

function liveContent(state: DomainState, kind: OwnedKind, name: string): unknown {
  switch (kind) {
    case 'index-template':
      return state.templates.get(name)?.body;
    case 'ingest-pipeline':
      return state.pipelines.get(name);
    case 'ism-policy':
      return state.policies.get(name)?.policy;
    case 'security-role':
      return state.roles.get(name);
    default:
      return name;
  }
}

/** The record before a deploy acts: what it has, plus what the deploy is about to write (deletes come after). */
export function recordBefore(state: DomainState, changes: readonly DomainChange[]): Map<string, string> {
  const out = new Map(state.registry?.objects ?? []);
  for (const [key, hash] of recordAfter(state, changes)) out.set(key, hash);
  return out;
}
