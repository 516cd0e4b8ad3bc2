/**
 * The security policies of kfek's OpenSearch Serverless collection (issue 42, docs/serverless.md): who may do what on
 * which index pattern, decided once here and rendered by the CDK app (lib/constructs/serverless-collection.ts) and
 * read by the conformance stand-in (scripts/serverless-standin.ts), so the policy deployed and the policy the tests
 * enforce are the same document.
 *
 * Syntax and permission names: "Data access control for Amazon OpenSearch Serverless"
 * (https://docs.aws.amazon.com/opensearch-service/latest/developerguide/serverless-data-access.html) and the
 * permission column of https://docs.aws.amazon.com/opensearch-service/latest/developerguide/serverless-genref.html.
 */

/** One rule of a data access policy statement. */
export interface AccessRule {
  readonly ResourceType: 'collection' | 'index';
  readonly Resource: readonly string[];
  readonly Permission: readonly string[];
}

/** One statement of a data access policy: its rules apply to each of its principals. */
export interface AccessStatement {
  readonly Description: string;
  readonly Rules: readonly AccessRule[];
  readonly Principal: readonly string[];
}

/** A family of indices (the default route's or a route's): its pattern and the principals that read it. */
export interface AccessFamily {
  /** `logs-*`, `payments-*` (core/contracts/index-naming.ts `indexPatternFor`). */
  readonly indexPattern: string;
  /** IAM role/user ARNs (or `saml/...` principals) that read exactly this family. */
  readonly readers: readonly string[];
}

export interface CollectionAccessInput {
  readonly collection: string;
  /** The indexer's role (and any other writer): create, update and write kfek's families, nothing else. */
  readonly writers: readonly string[];
  /** The people of `openSearch.access.adminBackendRoles`: everything, as a domain's `all_access`. */
  readonly admins: readonly string[];
  /**
   * kfek's provisioner role (the custom resource, core/opensearch/serverless-provision.ts): list and write the index
   * templates, and read, create and write kfek's record, the index named {@link recordIndex}; nothing on the families
   * ({@link PROVISIONER_COLLECTION_PERMISSIONS}, {@link PROVISIONER_RECORD_PERMISSIONS}).
   * @default - none
   */
  readonly provisioners?: readonly string[];
  /**
   * The scheduled retention function's role (issue 42): list and delete kfek's families, nothing else.
   * @default - none
   */
  readonly retainers?: readonly string[];
  readonly families: readonly AccessFamily[];
  /**
   * The scheduled reconcile function's role (and any other that judges every family): read every family, list the
   * index templates (aoss:DescribeCollectionItems) and read kfek's record, the index named {@link recordIndex}, so
   * it trusts the templates' stems as on a domain (core/reconcile/kept-stems.ts). Nothing that writes: the heal sends
   * through the raw stream.
   * @default - none
   */
  readonly reconcilers?: readonly string[];
  /** kfek's record of what it owns (core/opensearch/registry.ts `registryIndex`). @default '.kfek-registry' */
  readonly recordIndex?: string;
}

/**
 * What the indexer needs: create an index on first write, update its mapping, write documents (`_bulk`), and read
 * its settings (the genref table's minimum for writers is CreateIndex, WriteDocument, UpdateIndex; DescribeIndex lets
 * it check that an index exists before writing).
 */
export const WRITER_PERMISSIONS = [
  'aoss:CreateIndex',
  'aoss:UpdateIndex',
  'aoss:WriteDocument',
  'aoss:DescribeIndex',
] as const;
/**
 * What the retention function needs: list kfek's indices (`GET _cat/indices/<pattern>`, DescribeIndex) and delete
 * them (`DELETE <index>`, DeleteIndex); it reads no document and writes none.
 */
export const RETAINER_PERMISSIONS = ['aoss:DescribeIndex', 'aoss:DeleteIndex'] as const;
/** What a reader needs for `_search`, `_count`, `_mget` and Dashboards' index listing: nothing that writes. */
export const READER_PERMISSIONS = ['aoss:ReadDocument', 'aoss:DescribeIndex'] as const;
/**
 * What the provisioner needs on the collection: its index templates, which are collection items, not index resources
 * ("Alias and template permissions are at the collection level, while permissions for creating, modifying, and
 * searching data are at the index level": the Policy syntax table of serverless-data-access.html). In the API table
 * of serverless-genref.html, DescribeCollectionItems "describe[s] aliases and index templates" (`GET _index_template`,
 * which lists them before any write) and UpdateCollectionItems "update[s] aliases and index templates" (the `PUT
 * _index_template/<name>` of each family). CreateCollectionItems is listed for creating items (`POST _aliases`); the
 * table does not say under which of Create or Update a PUT of a template that does not exist yet falls, and a new
 * route's first deploy sends exactly that, so both are granted: a deploy refused there would fail after the access
 * policy's retries with nothing to fix but this policy. DeleteCollectionItems is not: kfek never deletes a template
 * (a removed route's is kept, serverless-provision.ts).
 */
export const PROVISIONER_COLLECTION_PERMISSIONS = [
  'aoss:DescribeCollectionItems',
  'aoss:CreateCollectionItems',
  'aoss:UpdateCollectionItems',
] as const;
/**
 * What the provisioner needs on kfek's record (registry.ts): read its one document (`GET <record>/_doc/objects`,
 * ReadDocument), create the index on the first deploy (`PUT <record>`, CreateIndex) and write the document
 * (`PUT <record>/_doc/objects`, WriteDocument). Nothing on the families: templates, not indices, shape them.
 */
export const PROVISIONER_RECORD_PERMISSIONS = [
  'aoss:ReadDocument',
  'aoss:CreateIndex',
  'aoss:WriteDocument',
] as const;

/** `index/<collection>/<pattern>`, the form a data access policy names indices by. */
export function indexResource(collection: string, pattern: string): string {
  return `index/${collection}/${pattern}`;
}

/** `collection/<collection>`. */
export function collectionResource(collection: string): string {
  return `collection/${collection}`;
}

/** One statement for `principals` (none when there are none): an index rule, and a collection rule when it has items. */
function statement(
  principals: readonly string[],
  description: string,
  index: { readonly resources: readonly string[]; readonly permissions: readonly string[] },
  collection?: { readonly resource: string; readonly permissions: readonly string[] },
): AccessStatement[] {
  if (principals.length === 0) return [];
  const rules: AccessRule[] = [
    { ResourceType: 'index', Resource: [...index.resources], Permission: [...index.permissions] },
  ];
  if (collection !== undefined) {
    rules.push({
      ResourceType: 'collection',
      Resource: [collection.resource],
      Permission: [...collection.permissions],
    });
  }
  return [{ Description: description, Rules: rules, Principal: [...principals] }];
}

/**
 * The data access policy: one statement per role of kfek's own (the indexer writes every family, the retention
 * function deletes them, the provisioner writes the templates and the record, reconcile reads), one for the admins on
 * everything, and one per family that has readers, on exactly that family's pattern (the default route's readers on
 * the default's). Families without readers get no statement: nobody but admins reads them.
 */
export function collectionAccessPolicy(input: CollectionAccessInput): readonly AccessStatement[] {
  const { collection } = input;
  const families = input.families.map((f) => indexResource(collection, f.indexPattern));
  const record = indexResource(collection, input.recordIndex ?? '.kfek-registry');
  const items = (permissions: readonly string[]): { resource: string; permissions: readonly string[] } => ({
    resource: collectionResource(collection),
    permissions,
  });
  return [
    ...statement(input.writers, "kfek's indexer writes kfek's indices", {
      resources: families,
      permissions: WRITER_PERMISSIONS,
    }),
    // The indexer reads the route pairs the provisioner recorded (route-record.ts), nothing else of the record.
    ...statement(input.writers, "kfek's indexer reads the route pairs in kfek's record", {
      resources: [record],
      permissions: ['aoss:ReadDocument'],
    }),
    ...statement(input.retainers ?? [], "kfek's retention function deletes kfek's indices past retention", {
      resources: families,
      permissions: RETAINER_PERMISSIONS,
    }),
    ...statement(
      input.admins,
      'kfek admins: every collection item and index',
      { resources: [indexResource(collection, '*')], permissions: ['aoss:*'] },
      items(['aoss:*']),
    ),
    ...statement(
      input.provisioners ?? [],
      "kfek's provisioner writes the index templates and kfek's record",
      { resources: [record], permissions: PROVISIONER_RECORD_PERMISSIONS },
      items(PROVISIONER_COLLECTION_PERMISSIONS),
    ),
    ...statement(
      input.reconcilers ?? [],
      'kfek reconcile reads every family, the index templates and the record',
      { resources: [...families, record], permissions: READER_PERMISSIONS },
      items(['aoss:DescribeCollectionItems']),
    ),
    ...input.families.flatMap((family) =>
      statement(family.readers, `readers of ${family.indexPattern}`, {
        resources: [indexResource(collection, family.indexPattern)],
        permissions: READER_PERMISSIONS,
      }),
    ),
  ];
}

/** A data access policy `Resource` pattern (`*` any run of characters) matched against a concrete resource. */
function resourceMatches(pattern: string, resource: string): boolean {
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`).test(resource);
}

/** A permission in a rule (`aoss:*` or the exact name) covering `permission`. */
function permissionCovers(granted: string, permission: string): boolean {
  return granted === 'aoss:*' || granted === permission;
}

/**
 * Whether `policy` lets `principal` use `permission` on `resource` (`index/<collection>/<index>` or
 * `collection/<collection>`). Data access policies only allow; nothing is allowed that no rule grants.
 */
export function policyAllows(
  policy: readonly AccessStatement[],
  principal: string,
  permission: string,
  resource: string,
): boolean {
  const type = resource.startsWith('index/') ? 'index' : 'collection';
  return policy.some(
    (statement) =>
      statement.Principal.includes(principal) &&
      statement.Rules.some(
        (rule) =>
          rule.ResourceType === type &&
          rule.Permission.some((p) => permissionCovers(p, permission)) &&
          rule.Resource.some((pattern) => resourceMatches(pattern, resource)),
      ),
  );
}
