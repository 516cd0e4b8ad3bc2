/**
 * `openSearch.kind` and `openSearch.serverless` (issue 42, docs/serverless.md): where kfek keeps its logs (a domain
 * or an OpenSearch Serverless collection), the collection's settings, and every setting a collection cannot honour,
 * refused with the reason. Each refusal names the AWS page that forces it (docs/serverless.md lists them).
 */
import { type IndexRotation, indexPatternFor } from '../contracts/index-naming';
import type { AccessFamily } from '../opensearch/serverless-access';
import type { Reader } from './reader';
import { COLLECTION_TYPES, type OpenSearchKind, type ServerlessConfig } from './types';

export { COLLECTION_TYPES, OPENSEARCH_KINDS } from './types';
export type { CollectionType, OpenSearchKind, ServerlessConfig } from './types';

/** Upper bound kfek accepts for a capacity limit; a typo of 10x is caught, real large groups still fit. */
const MAX_OCU = 1000;

/** Reads `openSearch.serverless`. */
export function readServerless(r: Reader): ServerlessConfig {
  const ocu = (key: string, min: number): number =>
    r.int(`openSearch.serverless.capacity.${key}`, min, MAX_OCU);
  return {
    collectionType: r.oneOf('openSearch.serverless.collectionType', COLLECTION_TYPES),
    standbyReplicas: r.bool('openSearch.serverless.standbyReplicas'),
    capacity: {
      minIndexingOcu: ocu('minIndexingOcu', 0),
      maxIndexingOcu: ocu('maxIndexingOcu', 1),
      minSearchOcu: ocu('minSearchOcu', 0),
      maxSearchOcu: ocu('maxSearchOcu', 1),
    },
  };
}

/** The parts of the resolved config the refusals read (structural, so this file needs nothing of ./types). */
export interface ServerlessCheckInput extends AccessFamiliesInput {
  /** `mode`: only kfek's indexer (`direct`) sends the document ids a collection needs. */
  readonly delivery: AccessFamiliesInput['delivery'] & { readonly mode: string };
  readonly openSearch: {
    readonly kind: OpenSearchKind;
    readonly serverless: ServerlessConfig;
    readonly auditLogs: boolean;
    readonly access: {
      readonly readerBackendRoles?: readonly string[];
      readonly adminBackendRoles?: readonly string[];
    };
  };
}

/**
 * A principal a data access policy accepts: an IAM role or user ARN, or a SAML principal
 * (`saml/<account>/<provider>/user|group/<name>`). A bare group name (which a domain's role mapping accepts as a
 * backend role) names nobody here.
 */
const POLICY_PRINCIPAL =
  /^(arn:aws[a-z-]*:iam::\d{12}:(role|user)\/\S+|saml\/\d{12}\/[^/\s]+\/(user|group)\/\S+)$/;

function checkPrincipals(r: Reader, c: ServerlessCheckInput): void {
  const lists: [string, readonly string[]][] = [
    ['openSearch.access.readerBackendRoles', c.openSearch.access.readerBackendRoles ?? []],
    ['openSearch.access.adminBackendRoles', c.openSearch.access.adminBackendRoles ?? []],
    ...c.routes.map((route, i): [string, readonly string[]] => [
      `routes[${i}].readerBackendRoles`,
      route.readerBackendRoles,
    ]),
  ];
  for (const [path, principals] of lists) {
    for (const principal of principals.filter((p) => !POLICY_PRINCIPAL.test(p))) {
      r.problem(
        `${path} has ${JSON.stringify(principal)}, which a Serverless data access policy cannot name: it takes IAM ` +
          'role or user ARNs and "saml/<account>/<provider>/group/<name>" principals (docs/serverless.md). Use one ' +
          'of those.',
      );
    }
  }
}

/**
 * Everything a Serverless collection cannot do that the profile asks for, refused with the reason and the fix. Runs
 * only for `openSearch.kind: "serverless"`.
 */
export function checkServerless(r: Reader, c: ServerlessCheckInput): void {
  if (c.openSearch.kind !== 'serverless') return;
  const s = c.openSearch.serverless;
  if (s.collectionType !== 'SEARCH') {
    r.problem(
      `openSearch.serverless.collectionType is ${JSON.stringify(s.collectionType)}, which does not keep the _id kfek ` +
        'sends (the collection generates its own), so every re-read, replay or heal would store a second copy and ' +
        'reconcile could not find an event by its id (docs/serverless.md). Use "SEARCH".',
    );
  }
  const mode = c.delivery.mode;
  if (mode !== 'direct') {
    r.problem(
      `delivery.mode is ${JSON.stringify(mode)} but openSearch.kind is "serverless": Firehose's Serverless destination ` +
        "has no document-id option, so it cannot send kfek's ids and would store re-read events twice " +
        '(docs/serverless.md). Set delivery.mode to "direct" (kfek\'s own indexer).',
    );
  }
  if (c.delivery.indexRotation === 'OneHour') {
    r.problem(
      'delivery.indexRotation is "OneHour" but openSearch.kind is "serverless": a collection has no shard settings ' +
        'to keep 24 indices a day small, and its idle OCUs grow with its index count (docs/serverless.md). Use ' +
        '"OneDay" or longer.',
    );
  }
  if (c.openSearch.auditLogs) {
    r.problem(
      'openSearch.auditLogs is true but openSearch.kind is "serverless": kfek turns audit logging on through the ' +
        "security plugin's API, which Serverless does not offer (docs/serverless.md). Set it to false and audit data " +
        'access with CloudTrail.',
    );
  }
  checkPrincipals(r, c);
  for (const kind of ['Indexing', 'Search'] as const) {
    const min = s.capacity[`min${kind}Ocu`];
    const max = s.capacity[`max${kind}Ocu`];
    if (min > max) {
      r.problem(
        `openSearch.serverless.capacity.min${kind}Ocu (${min}) is above max${kind}Ocu (${max}); the group could ` +
          `never satisfy both. Lower min${kind}Ocu or raise max${kind}Ocu.`,
      );
    }
  }
}

/** What {@link accessFamiliesOf} reads: the default route's prefix, rotation and readers, and the routes'. */
export interface AccessFamiliesInput {
  readonly delivery: { readonly indexPrefix: string; readonly indexRotation: IndexRotation };
  readonly openSearch: { readonly access: { readonly readerBackendRoles?: readonly string[] } };
  readonly routes: readonly { readonly indexStem: string; readonly readerBackendRoles: readonly string[] }[];
}

/**
 * kfek's index families as the collection's data access policy names them: the default route's (`logs-*`, read by
 * `openSearch.access.readerBackendRoles`) and each route's (`payments-*`, read by its own readers only).
 */
export function accessFamiliesOf(c: AccessFamiliesInput): readonly AccessFamily[] {
  const rotation = c.delivery.indexRotation;
  return [
    {
      indexPattern: indexPatternFor(c.delivery.indexPrefix, rotation),
      readers: c.openSearch.access.readerBackendRoles ?? [],
    },
    ...c.routes.map((route) => ({
      indexPattern: indexPatternFor(route.indexStem, rotation),
      readers: route.readerBackendRoles,
    })),
  ];
}

/** What {@link retentionFamiliesOf} reads. */
export interface RetentionFamiliesInput {
  readonly delivery: { readonly indexPrefix: string };
  readonly openSearch: { readonly retention: { readonly deleteAfterDays: number } };
  readonly routes: readonly { readonly indexStem: string; readonly retentionDays: number }[];
}

/**
 * kfek's index families with how long each keeps its indices: the default route's stem with
 * `openSearch.retention.deleteAfterDays`, each route's with its `retentionDays` (what a collection's retention
 * function deletes by, docs/serverless.md).
 */
export function retentionFamiliesOf(
  c: RetentionFamiliesInput,
): readonly { readonly stem: string; readonly retentionDays: number }[] {
  return [
    { stem: c.delivery.indexPrefix, retentionDays: c.openSearch.retention.deleteAfterDays },
    ...c.routes.map((r) => ({ stem: r.indexStem, retentionDays: r.retentionDays })),
  ];
}
