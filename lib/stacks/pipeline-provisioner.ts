/**
 * The OpenSearch provisioner in the Pipeline stack (on a domain: templates, ISM, roles, Dashboards; on a collection:
 * kfek's index templates and its record only, docs/serverless.md), and the update order it sets. Created in the stack's scope with the construct id it always had
 * (`OpenSearchProvisioner`), so moving it here out of the stack's constructor changed no logical id.
 */
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import type { Construct } from 'constructs';
import type { OpenSearchConfig, RouteConfig } from '../../core/config';
import type { PhysicalNames } from '../../core/contracts/physical-names';
import { OpenSearchProvisioner } from '../constructs/opensearch-provisioner';

export interface PipelineProvisionerProps {
  /** The domain to provision; exactly one of this and {@link collection}. @default - none */
  readonly domain?: opensearch.IDomain;
  /**
   * The Serverless collection to provision instead (signed for `aoss`, no Dashboards objects).
   * @default - none
   */
  readonly collection?: { readonly endpoint: string; readonly arn: string };
  /**
   * The domain's master user, or the admin role the collection's data access policy names its provisioner
   * (PipelineStackProps.openSearchAdminRole): the provisioner runs as it.
   */
  readonly role: iam.IRole;
  readonly openSearch: Pick<OpenSearchConfig, 'indexTemplate' | 'retention' | 'access' | 'auditLogs'>;
  /** Config `delivery.indexPrefix`. */
  readonly indexPrefix: string;
  /** The delivery's role (Firehose's or the indexer's), mapped to the writer role. */
  readonly writerRole: iam.IRole;
  /**
   * The indexer's fixed-name role ARN while Firehose delivers, mapped to the writer role too.
   * @default - none
   */
  readonly standbyWriterRoleArn?: string;
  /** The reconcile function's role ARN, a reader of every route's indices. @default - none */
  readonly reconcileRoleArn?: string;
  readonly routes: readonly RouteConfig[];
  /** @default - the provisioner's default (0) */
  readonly keepRetiredHours?: number;
  readonly logRetention: logs.RetentionDays;
  /** @default - names CloudFormation generates */
  readonly names?: Pick<PhysicalNames, 'provisionerLogGroup' | 'provisionerProviderLogGroup'>;
}

/** What must be updated after the provisioner: each depends on its custom resource. */
export interface ProvisionedFirst {
  /** The events stream's reader (the delivery stream or the indexer's mapping). */
  readonly reader: Construct;
  readonly indexer?: Construct;
  readonly transform: Construct;
  readonly reconcile?: Construct;
}

/**
 * Creates the provisioner in `scope` (the Pipeline stack). Signed mode: it runs as the domain's master user, the
 * only identity the security REST API answers before any mapping exists. The role lives in the Search stack; the
 * grants the provisioner attaches are a separate Policy in this stack, so references point from Pipeline to Search
 * only.
 */
export function createProvisioner(scope: Construct, props: PipelineProvisionerProps): OpenSearchProvisioner {
  const os = props.openSearch;
  const names = props.names;
  const reconcileReader = props.reconcileRoleArn === undefined ? [] : [props.reconcileRoleArn];
  return new OpenSearchProvisioner(scope, 'OpenSearchProvisioner', {
    ...(props.collection === undefined
      ? { domain: props.domain }
      : { collection: props.collection, dashboards: false }),
    role: props.role,
    indexPrefix: props.indexPrefix,
    indexTemplate: os.indexTemplate,
    retention: os.retention,
    auditLogs: os.auditLogs,
    writerRole: props.writerRole,
    ...(props.standbyWriterRoleArn === undefined ? {} : { writerBackendRoles: [props.standbyWriterRoleArn] }),
    readerBackendRoles: [...(os.access.readerBackendRoles ?? []), ...reconcileReader],
    adminBackendRoles: os.access.adminBackendRoles ?? [],
    reconcileBackendRoles: reconcileReader,
    routes: props.routes.map((r) => ({
      name: r.name,
      indexStem: r.indexStem,
      retentionDays: r.retentionDays,
      readerBackendRoles: [...r.readerBackendRoles, ...reconcileReader],
    })),
    ...(props.keepRetiredHours === undefined ? {} : { keepRetiredHours: props.keepRetiredHours }),
    logRetention: props.logRetention,
    ...(names !== undefined
      ? {
          logGroupNames: {
            provisioner: names.provisionerLogGroup,
            provider: names.provisionerProviderLogGroup,
          },
        }
      : {}),
  });
}

/**
 * Makes CloudFormation create and update `first`'s constructs only after the provisioner's resource. Template and
 * writer mapping before the first delivery (a first index created without the template keeps guessed mappings for
 * the whole day; without the mapping every document is rejected to S3), and before Firehose or the indexer is
 * updated to a new index prefix: the writer role covers the new prefix (and still the old one) first. The indexer's
 * function too, so its environment (routes, prefix) changes only after the domain's.
 */
export function provisionFirst(provisioner: OpenSearchProvisioner, first: ProvisionedFirst): void {
  first.reader.node.addDependency(provisioner.resource);
  first.indexer?.node.addDependency(provisioner.resource);
  // The route table before the transform (issue 30.4): the function's environment (KFEK_ROUTES) names the routes it
  // marks documents with, and CloudFormation updates it only after the provisioner has put every new route name
  // into the ingest pipeline's table (and kept the retired ones), so no document carries a name the table lacks.
  // test/lib/stacks/update-order.test.ts proves the order from the synthesized template.
  first.transform.node.addDependency(provisioner.resource);
  // The reconcile function plans with the same routes (its environment) and reads as a reader the provisioner maps:
  // it is updated after the provisioner too, so a run never judges by a route the domain does not know yet.
  first.reconcile?.node.addDependency(provisioner.resource);
}
