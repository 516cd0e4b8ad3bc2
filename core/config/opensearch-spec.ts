/**
 * The OpenSearch provisioner's spec of a resolved profile: one reader of the config's OpenSearch side for the local
 * run (`npm start`), the tests and the doctor's tests; the CDK app passes the same fields to the provisioner
 * construct's props (lib/stacks/pipeline-stack.ts). In core/config, not core/opensearch: the config knows the
 * spec it feeds, the OpenSearch applier never imports the config (no folder circle).
 */
import { type OpenSearchSpecInput, templateSettingsInput } from '../opensearch/spec';
import { retiredNamesHours } from './opensearch-budget';
import type { PipelineConfig } from './types';

export interface SpecAccess {
  /** The Firehose delivery role's ARN. @default - none (the local node has no security plugin) */
  readonly firehoseRoleArn?: string;
  /**
   * Further ARNs mapped to the writer role: the indexer's fixed-name role while Firehose delivers (the Pipeline
   * stack's `IndexerRoleArn` output). @default - none
   */
  readonly writerBackendRoles?: readonly string[];
}

export function openSearchSpecInputOf(config: PipelineConfig, access: SpecAccess = {}): OpenSearchSpecInput {
  const os = config.openSearch;
  return {
    indexPrefix: config.delivery.indexPrefix,
    indexTemplate: templateSettingsInput(os.indexTemplate),
    retention: os.retention,
    auditLogs: os.auditLogs,
    ...(config.routes.length === 0
      ? {}
      : {
          routes: config.routes.map((r) => ({
            name: r.name,
            indexStem: r.indexStem,
            retentionDays: r.retentionDays,
            readerBackendRoles: r.readerBackendRoles,
          })),
        }),
    keepRetiredHours: retiredNamesHours(config),
    access: {
      ...(access.firehoseRoleArn === undefined ? {} : { firehoseRoleArn: access.firehoseRoleArn }),
      ...(access.writerBackendRoles === undefined ? {} : { writerBackendRoles: access.writerBackendRoles }),
      readerBackendRoles: os.access.readerBackendRoles ?? [],
      readerUsers: [],
      adminBackendRoles: os.access.adminBackendRoles ?? [],
    },
  };
}
