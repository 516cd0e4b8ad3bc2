/**
 * kfek's record of what it owns in the domain (issue 39): each object it created or adopted, by kind and name, with
 * the content hash of what it rendered for it (drift.ts). kfek updates, reverts, deletes and prunes only what this
 * record names (or what the profile renders, which it writes anyway); a mark on an object (`_meta.managed_by`, a
 * `kfek:` description, a hash in a description, an id prefix) can be copied by anyone who can create such an object,
 * so it never proves ownership, as Terraform's state and Helm's release records, not labels, say what a tool made.
 *
 * Where it lives, and why: one document (`objects`) in the hidden index `.<name>-registry` of the domain itself.
 * - The provisioner and `kfek doctor` read it through the client they already use, so the doctor plans against the
 *   same record the deploy will use.
 * - It covers what the previous deploy's spec (the custom resource's old properties) cannot: retired families kept
 *   after their stem left the profile, and objects written by deploys before the previous one.
 * - Only principals that may write that index can change it: the admins (`all_access`) and the provisioner. kfek's
 *   own roles never reach it (their patterns are its stems; a dot-prefixed, hidden index matches none of them), and a
 *   Dashboards user who may write saved objects cannot write an index. Writes use `if_seq_no`/`if_primary_term`, so
 *   two deploys never overwrite each other's record silently.
 *
 * Migration: a domain deployed by kfek before this record has none. Its first deploy adopts the objects that carry
 * kfek's old marks AND whose name kfek itself renders: for the current or the previous spec, or, for a retired
 * family, the names its own template's stem gives (`<name>-<stem>`, `<name>-<stem>-retention`, its ledger's reader
 * role). A copy under another name is never adopted. From then on the record alone decides.
 *
 * This file reads and writes the record; what a deploy's changes make of it is registry-changes.ts, which reads the
 * domain's state (domain-state.ts reads the record through this file, so the state is never imported here).
 */
import { buildSavedObjects } from './dashboards';
import type { OwnedKind } from './drift';
import { OpenSearchProvisioningError } from './errors';
import type { OpenSearchHttpClient } from './http';
import { call, record } from './provision-client';
import { name as one, requestPath } from './request-path';
import { indexFamilies, type OpenSearchSpec } from './spec';

/** The record as read: `<kind>:<name>` -> content hash, and the document's version for the next write. */
export interface Registry {
  readonly objects: ReadonlyMap<string, string>;
  readonly seqNo: number;
  readonly primaryTerm: number;
}

/** A concurrent change of kfek's record (another deploy, or a hand edit of the record) during this deploy. */
export class OpenSearchRegistryConflictError extends OpenSearchProvisioningError {
  /** @param doc the record's document that changed: `objects` (what kfek owns) or `routes` (a collection's pairs) */
  constructor(index: string, text: string, doc: string = DOC) {
    super(
      `kfek's record of what it owns (${index}/_doc/${doc}) changed while this deploy ran (409: ${text.slice(0, 200)}). ` +
        'Another deploy of the same name is probably running: let it finish, then deploy again.',
    );
    this.name = 'OpenSearchRegistryConflictError';
  }
}

const DOC = 'objects';
const INDEX_SETTINGS = { hidden: true, number_of_shards: 1, auto_expand_replicas: '0-1' };

/** The hidden index that holds kfek's record: `.<name>-registry`. */
export const registryIndex = (name: string): string => `.${name}-registry`;

export const registryKey = (kind: OwnedKind, name: string): string => `${kind}:${name}`;

/**
 * The domain paths (below the domain ARN, without the query) the provisioner reads and writes the record at: what
 * its IAM policy must allow for es:ESHttpGet and es:ESHttpPut, beside kfek's objects. No delete: the record is never
 * deleted by kfek.
 */
export function registryPaths(name: string): readonly string[] {
  return [registryIndex(name), `${registryIndex(name)}/_doc/${DOC}`];
}

/** The record on the domain; undefined when it has none (a new domain, or one deployed by kfek before issue 39). */
export async function readRegistry(
  client: OpenSearchHttpClient,
  name: string,
): Promise<Registry | undefined> {
  const got = await call(client, { method: 'GET', path: registryDocPath(name) }, [200, 404]);
  return got.status === 404 ? undefined : registryFrom(got.body);
}

/** Where the record's one document is read: `GET` it. */
export const registryDocPath = (name: string): string =>
  requestPath([one('index', registryIndex(name)), '_doc', DOC]);

/** The record in a `GET` answer of {@link registryDocPath}; undefined when the answer holds none. */
export function registryFrom(answer: unknown): Registry | undefined {
  const body = record(answer);
  if (body.found !== true) return undefined;
  const objects = new Map(
    Object.entries(record(record(body._source).objects)).filter(
      (e): e is [string, string] => typeof e[1] === 'string',
    ),
  );
  return { objects, seqNo: Number(body._seq_no), primaryTerm: Number(body._primary_term) };
}

const sameObjects = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean =>
  a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);

/** Writes the record when it changed (a deploy that changes nothing writes nothing); answers the record as stored. */
export async function writeRegistry(
  client: OpenSearchHttpClient,
  name: string,
  before: Registry | undefined,
  objects: ReadonlyMap<string, string>,
  target: { readonly serverless?: boolean } = {},
): Promise<Registry> {
  if (before !== undefined && sameObjects(before.objects, objects)) return before;
  const index = registryIndex(name);
  if (before === undefined) {
    // Hidden: wildcard expressions (`*`, `_cat/indices?expand_wildcards=open`) leave it out; one shard, a replica
    // wherever there is a node. A Serverless collection manages shards and replicas itself and refuses both settings
    // (docs/serverless.md): there the index is created plain (its name starts with a dot, which no kfek pattern
    // matches, and the data access policy gives it to the admins only).
    const settings = target.serverless === true ? {} : { settings: { index: INDEX_SETTINGS } };
    const created = await call(
      client,
      {
        method: 'PUT',
        path: requestPath([one('index', index)]),
        body: settings,
      },
      [200, 400],
    );
    if (created.status === 400 && !created.text.includes('resource_already_exists_exception')) {
      throw new OpenSearchProvisioningError(
        `Creating kfek's record index ${index} failed (400: ${created.text.slice(0, 300)}).`,
      );
    }
  }
  const query =
    before === undefined
      ? { op_type: 'create' }
      : { if_seq_no: before.seqNo, if_primary_term: before.primaryTerm };
  const sorted = Object.fromEntries([...objects].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const put = await call(
    client,
    {
      method: 'PUT',
      path: requestPath([one('index', index), '_doc', DOC], query),
      body: { kfek: name, objects: sorted },
    },
    [200, 201, 409],
  );
  if (put.status === 409) throw new OpenSearchRegistryConflictError(index, put.text);
  const answer = record(put.body);
  return { objects, seqNo: Number(answer._seq_no), primaryTerm: Number(answer._primary_term) };
}

/** The keys of the objects a deploy of `spec` writes: kfek claims these names whatever they hold now. */
export function renderedKeys(spec: OpenSearchSpec): Set<string> {
  return new Set([
    ...indexFamilies(spec).flatMap((f) => [
      registryKey('index-template', f.names.indexTemplate),
      registryKey('ism-policy', f.names.ismPolicy),
    ]),
    registryKey('ingest-pipeline', spec.names.ingestPipeline),
    registryKey('security-role', spec.names.writerRole),
    registryKey('security-role', spec.names.readerRole),
    ...spec.routes.map((r) => registryKey('security-role', r.names.readerRole)),
    ...buildSavedObjects(spec).map((o) => registryKey('saved-object', `${o.type}/${o.id}`)),
  ]);
}
