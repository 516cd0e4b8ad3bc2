/**
 * `npm start -- --profile sandbox-serverless` (issue 42, docs/serverless.md): the local run against an OpenSearch
 * Serverless collection. No Serverless runs here, so the conformance stand-in (scripts/serverless/standin.ts) goes in
 * front of the run's node and answers as a collection would: every request signed for `aoss`, Serverless's refusals
 * (no `_refresh`, no `routing`, no ingest pipeline with Painless, no shard settings) applied. Through it the run
 * provisions with core/opensearch/serverless-provision.ts (the custom resource's code on a collection), the shipped
 * indexer writes signing for `aoss` and sending no routing, and the summary and reconcile read it signed.
 *
 * One local key signs everything (moto's dummy credentials): the stand-in knows it as one principal and enforces no
 * data access policy, unless the run is given one ({@link LocalCollectionAccess}: the teams test,
 * test/e2e/serverless-teams.test.ts, gives the policy the CDK app deploys and the indexer its own principal).
 */
import type { PipelineConfig } from '../../core/config';
import { createHttpClient, type OpenSearchHttpClient } from '../../core/opensearch/http';
import { provisionCollection } from '../../core/opensearch/serverless-provision';
import type { AccessStatement } from '../../core/opensearch/serverless-access';
import { type RunningStandin, type StandinIdentity, startServerlessStandin } from '../serverless/standin';
import { LOCAL_CREDENTIALS } from './aws-clients';
import { openSearchSpecFromConfig } from './config-spec';
import { SearchHttp } from './search-http';
import { MOTO_ACCOUNT_ID } from './spec';

/** The principal the stand-in takes the local key for. */
export const LOCAL_COLLECTION_PRINCIPAL = `arn:aws:iam::${MOTO_ACCOUNT_ID}:role/kfek-local`;

/** The service the collection's requests are signed for. */
export const COLLECTION_SIGNING_SERVICE = 'aoss';

/** True when the profile keeps its logs in a Serverless collection (`openSearch.kind: serverless`). */
export function isServerlessProfile(config: PipelineConfig): boolean {
  return config.openSearch.kind === 'serverless';
}

/**
 * A client of the local collection, signed for `aoss` with the local key.
 * @param maxAttempts 1 for the delivery and the probe, which retry by themselves (search-http.ts).
 */
export function collectionClient(
  url: string,
  region: string,
  maxAttempts: number,
  credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } = LOCAL_CREDENTIALS,
): OpenSearchHttpClient {
  return createHttpClient({
    baseUrl: url,
    auth: { kind: 'sigv4', region, service: COLLECTION_SIGNING_SERVICE, credentials },
    maxAttempts,
    timeoutMillis: 30_000,
  });
}

/**
 * The runner's search client of the collection: signed, not retrying, and never asking for `_refresh` (Serverless
 * does not list it; counts wait on their condition instead, summary.ts).
 */
export function collectionSearchHttp(url: string, region: string): SearchHttp {
  return new SearchHttp(collectionClient(url, region, 1), { collection: true });
}

/**
 * A data access policy for the stand-in to enforce on a run, and who signs: the local key stands for
 * {@link LOCAL_COLLECTION_PRINCIPAL} (the summary's counts and the reconcile step sign with it, and the provisioner
 * unless it is given its own key), the indexer signs with its own key, and the others (readers, the retention
 * function) are known to the stand-in only.
 */
export interface LocalCollectionAccess {
  /** The policy every request is judged by (core/opensearch/serverless-access.ts, the document the CDK app deploys). */
  readonly accessPolicy: readonly AccessStatement[];
  /** The indexer's key and principal (the CDK app's writer role). */
  readonly indexer: StandinIdentity;
  /**
   * The provisioner's key and principal (the CDK app's provisioner statement), which then applies the templates and
   * the record in its place. @default - the local key provisions
   */
  readonly provisioner?: StandinIdentity;
  /** More signers the stand-in knows. @default - none */
  readonly identities?: readonly StandinIdentity[];
}

/** The stand-in in front of the node, for the run's region and key, enforcing `access` when given. */
export function startLocalCollection(
  nodeUrl: string,
  region: string,
  access?: LocalCollectionAccess,
): Promise<RunningStandin> {
  return startServerlessStandin({
    upstream: nodeUrl,
    region,
    identities: [
      { ...LOCAL_CREDENTIALS, principal: LOCAL_COLLECTION_PRINCIPAL },
      ...(access === undefined
        ? []
        : [
            access.indexer,
            ...(access.provisioner === undefined ? [] : [access.provisioner]),
            ...(access.identities ?? []),
          ]),
    ],
    ...(access === undefined ? {} : { accessPolicy: access.accessPolicy }),
  });
}

/** Applies the profile's index templates and kfek's record to the collection, as the provisioner does in AWS. */
export async function provisionLocalCollection(
  config: PipelineConfig,
  url: string,
  region: string,
  log: (line: string) => void,
  provisioner?: StandinIdentity,
): Promise<void> {
  const report = await provisionCollection(
    collectionClient(url, region, 3, provisioner),
    openSearchSpecFromConfig(config),
    { log },
  );
  log(`${report.steps.length} provisioning steps on the collection`);
}
