/**
 * cdk.json's `teams` profile on an OpenSearch Serverless collection, for test/e2e/serverless-teams.test.ts: direct
 * delivery, every reader an IAM role ARN (a data access policy names no bare backend role, core/config/serverless.ts),
 * and the principals of the stand-in, one key pair each, as the CDK app makes them (lib/constructs/
 * serverless-collection.ts): the indexer's writer role, the retention and reconcile functions' roles, and one role per
 * route's readers and for the default route's.
 */
import { type PipelineConfig, resolveConfig } from '../../core/config';
import { accessFamiliesOf } from '../../core/config/serverless';
import { registryIndex } from '../../core/opensearch/registry';
import { type AccessStatement, collectionAccessPolicy } from '../../core/opensearch/serverless-access';
import { OPENSEARCH_SPEC_DEFAULTS } from '../../core/opensearch/spec';
import { LOCAL_COLLECTION_PRINCIPAL } from '../../scripts/local/local-collection';
import { CDK_JSON_CONTEXT } from './app';
import { standinIdentity } from './serverless-standin';

/** The profile's name in {@link TEAMS_SERVERLESS_CONTEXT}. */
export const TEAMS_SERVERLESS_PROFILE = 'teams-serverless';

/** The stand-in's collection name (scripts/serverless/standin.ts), which the policy's resources name. */
const COLLECTION = 'kfek-standin';

export const TEAMS_READERS = {
  payments: standinIdentity('payments-readers'),
  search: standinIdentity('search-readers'),
  logs: standinIdentity('logs-readers'),
} as const;
export const TEAMS_INDEXER = standinIdentity('kfek-indexer');
export const TEAMS_RETENTION = standinIdentity('kfek-retention');
export const TEAMS_RECONCILER = standinIdentity('kfek-reconcile');
export const TEAMS_PROVISIONER = standinIdentity('kfek-provisioner');

function teamsServerlessProfile(): Record<string, unknown> {
  const profiles = (CDK_JSON_CONTEXT.kfek as { profiles: Record<string, Record<string, unknown>> }).profiles;
  const teams = profiles.teams as { routes: { name: keyof typeof TEAMS_READERS }[] };
  return {
    ...teams,
    delivery: { mode: 'direct' },
    openSearch: {
      kind: 'serverless',
      auditLogs: false,
      access: { readerBackendRoles: [TEAMS_READERS.logs.principal] },
    },
    routes: teams.routes.map((route) => ({
      ...route,
      readerBackendRoles: [TEAMS_READERS[route.name].principal],
    })),
  };
}

/** cdk.json's `context` with only the teams-serverless profile (the CLI reads profiles from a cdk.json). */
export const TEAMS_SERVERLESS_CONTEXT = {
  kfek: { profiles: { [TEAMS_SERVERLESS_PROFILE]: teamsServerlessProfile() } },
};

/** The resolved config, as the CDK app and the runner resolve it. */
export function teamsServerlessConfig(): PipelineConfig {
  return resolveConfig(TEAMS_SERVERLESS_CONTEXT, TEAMS_SERVERLESS_PROFILE);
}

/**
 * The data access policy the CDK app deploys for `config`: the provisioner its own statement (templates and kfek's
 * record only), the local key (the run's own counts) an admin, and every other principal its own statement.
 */
export function teamsAccessPolicy(config: PipelineConfig): readonly AccessStatement[] {
  return collectionAccessPolicy({
    collection: COLLECTION,
    writers: [TEAMS_INDEXER.principal],
    retainers: [TEAMS_RETENTION.principal],
    admins: [LOCAL_COLLECTION_PRINCIPAL],
    provisioners: [TEAMS_PROVISIONER.principal],
    reconcilers: [TEAMS_RECONCILER.principal],
    recordIndex: registryIndex(OPENSEARCH_SPEC_DEFAULTS.name),
    families: accessFamiliesOf(config),
  });
}
