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
  /** kfek's provisioner role and the people of `openSearch.access.adminBackendRoles`: everything. */
  readonly admins: readonly string[];
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

/** `index/<collection>/<pattern>`, the form a data access policy names indices by. */
export function indexResource(collection: string, pattern: string): string {
  return `index/${collection}/${pattern}`;
}

/** `collection/<collection>`. */
export function collectionResource(collection: string): string {
  return `collection/${collection}`;
}

/**
 * The data access policy: one statement for the writers on every family, one for the admins on everything, and one
 * per family that has readers, on exactly that family's pattern (the default route's readers on the default's).
 * Families without readers get no statement: nobody but admins reads them.
 */
export function collectionAccessPolicy(input: CollectionAccessInput): readonly AccessStatement[] {
  const { collection } = input;
  const statements: AccessStatement[] = [];
  // One rule on every family's pattern for each role of kfek's own: the indexer writes, the retention function deletes.
  const onFamilies = (
    principals: readonly string[],
    description: string,
    permissions: readonly string[],
  ): void => {
    if (principals.length === 0) return;
    statements.push({
      Description: description,
      Rules: [
        {
          ResourceType: 'index',
          Resource: input.families.map((f) => indexResource(collection, f.indexPattern)),
          Permission: [...permissions],
        },
      ],
      Principal: [...principals],
    });
  };
  onFamilies(input.writers, "kfek's indexer writes kfek's indices", WRITER_PERMISSIONS);
  if (input.writers.length > 0) {
    // The indexer reads the route pairs the provisioner recorded (route-record.ts), nothing else of the record.
    statements.push({
      Description: "kfek's indexer reads the route pairs in kfek's record",
      Rules: [
        {
          ResourceType: 'index',
          Resource: [indexResource(collection, input.recordIndex ?? '.kfek-registry')],
          Permission: ['aoss:ReadDocument'],
        },
      ],
      Principal: [...input.writers],
    });
  }
  onFamilies(
    input.retainers ?? [],
    "kfek's retention function deletes kfek's indices past retention",
    RETAINER_PERMISSIONS,
  );
  if (input.admins.length > 0) {
    statements.push({
      Description: 'kfek admins: every collection item and index',
      Rules: [
        { ResourceType: 'collection', Resource: [collectionResource(collection)], Permission: ['aoss:*'] },
        { ResourceType: 'index', Resource: [indexResource(collection, '*')], Permission: ['aoss:*'] },
      ],
      Principal: [...input.admins],
    });
  }
  if ((input.reconcilers ?? []).length > 0) {
    statements.push({
      Description: 'kfek reconcile reads every family, the index templates and the record',
      Rules: [
        {
          ResourceType: 'index',
          Resource: [
            ...input.families.map((f) => indexResource(collection, f.indexPattern)),
            indexResource(collection, input.recordIndex ?? '.kfek-registry'),
          ],
          Permission: [...READER_PERMISSIONS],
        },
        {
          ResourceType: 'collection',
          Resource: [collectionResource(collection)],
          Permission: ['aoss:DescribeCollectionItems'],
        },
      ],
      Principal: [...(input.reconcilers ?? [])],
    });
  }
  for (const family of input.families) {
    if (family.readers.length === 0) continue;
    statements.push({
      Description: `readers of ${family.indexPattern}`,
      Rules: [
        {
          ResourceType: 'index',
          Resource: [indexResource(collection, family.indexPattern)],
          Permission: [...READER_PERMISSIONS],
        },
      ],
      Principal: [...family.readers],
    });
  }
  return statements;
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
