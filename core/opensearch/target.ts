/**
 * Which kind of OpenSearch a tool talks to, and what that changes on the wire (issue 42, docs/serverless.md): the one
 * place that maps a profile's `openSearch.kind`, an explicit `--service` and an endpoint's host name to the SigV4
 * service to sign for and whether `routing` may be sent. The CLI's tools (verify, proxy, reconcile) and the functions
 * read it here, so a collection is never signed for `es` or sent a `routing` by one of them and not the others.
 */
import type { OpenSearchKind } from '../config/types';
import type { OpenSearchSigningService } from '../contracts/indexer-env';

export type { OpenSearchSigningService } from '../contracts/indexer-env';

/** The SigV4 service names, in the order messages list them. */
export const SIGNING_SERVICES: readonly OpenSearchSigningService[] = ['es', 'aoss'];

/**
 * A Serverless collection's endpoint: `<id>.<region>.aoss.amazonaws.com` (`.com.cn` in China), as CloudFormation's
 * `CollectionEndpoint` returns it. A domain's is `search-...<region>.es.amazonaws.com`.
 */
const COLLECTION_HOST = /\.aoss\.amazonaws\.com(\.cn)?$/i;

/** What a tool sends differently to a collection. */
export interface OpenSearchTarget {
  readonly kind: OpenSearchKind;
  /** The SigV4 service: `es` for a domain, `aoss` for a collection. */
  readonly service: OpenSearchSigningService;
  /**
   * Whether a request may carry `routing` (bulk actions, `_mget` docs): a collection places documents itself, and
   * the conformance stand-in refuses it (docs/serverless.md, "Bulk routing").
   */
  readonly routing: boolean;
  /** Whether every request must be signed: a collection answers nothing unsigned (IAM only, no basic auth). */
  readonly mustSign: boolean;
}

/** How a tool was told where it sends. */
export interface TargetHints {
  /** The endpoint's host name, e.g. from `--opensearch`. */
  readonly host?: string;
  /** The cdk.json profile's `openSearch.kind`, when the tool read a profile. */
  readonly kind?: OpenSearchKind;
  /** `--service es|aoss` as given. */
  readonly service?: string;
}

/** Thrown when the hints disagree or name no service kfek knows. */
export class OpenSearchTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OpenSearchTargetError';
  }
}

/** The target of a profile's kind. */
export function targetOfKind(kind: OpenSearchKind): OpenSearchTarget {
  return kind === 'serverless'
    ? { kind, service: 'aoss', routing: false, mustSign: true }
    : { kind, service: 'es', routing: true, mustSign: false };
}

/**
 * The target from what the tool was told: `--service` first, then the profile's kind, then the host name (a
 * `.aoss.amazonaws.com` endpoint is a collection), else a domain. A `--service` that contradicts the profile or the
 * host is refused: signing a collection's requests for `es` only ever gets a 403.
 */
export function resolveOpenSearchTarget(hints: TargetHints): OpenSearchTarget {
  const fromHost: OpenSearchKind | undefined =
    hints.host !== undefined && COLLECTION_HOST.test(hints.host) ? 'serverless' : undefined;
  let fromService: OpenSearchKind | undefined;
  if (hints.service !== undefined) {
    if (!SIGNING_SERVICES.includes(hints.service as OpenSearchSigningService)) {
      throw new OpenSearchTargetError(
        `--service ${JSON.stringify(hints.service)} is not a SigV4 service of OpenSearch: pass es (a domain) or ` +
          'aoss (a Serverless collection)',
      );
    }
    fromService = hints.service === 'aoss' ? 'serverless' : 'domain';
  }
  const implied = hints.kind ?? fromHost;
  if (fromService !== undefined && implied !== undefined && fromService !== implied) {
    const why =
      hints.kind !== undefined
        ? `the profile's openSearch.kind is ${hints.kind}`
        : `${hints.host} is a Serverless collection's endpoint`;
    throw new OpenSearchTargetError(
      `--service ${hints.service} does not fit the target: ${why}; pass --service ` +
        `${targetOfKind(implied).service} or leave it out`,
    );
  }
  return targetOfKind(fromService ?? implied ?? 'domain');
}
