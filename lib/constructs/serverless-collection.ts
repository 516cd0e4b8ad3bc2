import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as aoss from 'aws-cdk-lib/aws-opensearchserverless';
import { Construct } from 'constructs';
import type { ServerlessConfig } from '../../core/config';
import {
  type AccessFamily,
  collectionAccessPolicy,
  collectionResource,
} from '../../core/opensearch/serverless-access';
import { registryIndex } from '../../core/opensearch/registry';
import { OPENSEARCH_SPEC_DEFAULTS } from '../../core/opensearch/spec';

export interface ServerlessCollectionProps {
  /**
   * The collection's name, also the stem of its group's and policies' names (3-28 characters; a security policy
   * name is at most 32, and kfek adds 4).
   */
  readonly collectionName: string;
  /** Type, standby replicas and the collection group's capacity (config `openSearch.serverless`). */
  readonly settings: ServerlessConfig;
  /** kfek's index families and who reads each (the default route's and every route's). */
  readonly families: readonly AccessFamily[];
  /**
   * The role kfek's provisioner runs as (the Search stack's admin role): the index templates and kfek's record only
   * (core/opensearch/serverless-access.ts `provisioners`), not the admins' `aoss:*`.
   */
  readonly adminRole: iam.IRole;
  /**
   * People with every permission (config `openSearch.access.adminBackendRoles`).
   * @default - none
   */
  readonly adminPrincipals?: readonly string[];
  /**
   * Make the scheduled reconcile function's role here, beside the policy that names it (config `reconcile.enabled`):
   * it reads every family, the index templates and kfek's record (core/opensearch/serverless-access.ts).
   * @default false
   */
  readonly reconcileReader?: boolean;
  /**
   * What happens to the collection (and its indices) when the stack deletes or replaces it.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * An OpenSearch Serverless collection for kfek (issue 42, docs/serverless.md), wrapping the L1 resources behind
 * typed props (no L2 exists):
 *
 * - a NextGen collection group whose minimum capacity may be 0, so the collection scales to zero when idle
 *   (https://docs.aws.amazon.com/opensearch-service/latest/developerguide/serverless-scale-to-zero.html);
 * - the collection itself, of type SEARCH (the one type that keeps the `_id` kfek sends);
 * - its encryption policy (AWS-owned key), network policy (public endpoint; every request is still SigV4-signed
 *   and judged by the data access policy) and data access policy (core/opensearch/serverless-access.ts);
 * - the writer role the direct-delivery indexer runs as, allowed `aoss:APIAccessAll` on this collection only by
 *   IAM and kfek's index families only by the data access policy. It lives here, beside the policy that names it, as
 *   the domain's admin role does: references run from the Pipeline stack to this one, never back.
 *
 * Create order: CloudFormation refuses a collection whose name no encryption policy covers, so the collection
 * depends on it explicitly (the policy names the collection by string, which CloudFormation cannot see).
 */
export class ServerlessCollection extends Construct {
  readonly collection: aoss.CfnCollection;
  readonly group: aoss.CfnCollectionGroup;
  /** `https://<id>.<region>.aoss.amazonaws.com`: where the indexer and the tools send requests. */
  readonly collectionEndpoint: string;
  readonly collectionArn: string;
  /** The direct-delivery indexer's role (issue 41): write on kfek's families, sign for `aoss`. */
  readonly writerRole: iam.IRole;
  /** The scheduled retention function's role (lib/constructs/serverless-retention.ts): list and delete kfek's families. */
  readonly retentionRole: iam.IRole;
  readonly accessPolicy: aoss.CfnAccessPolicy;
  /** The scheduled reconcile function's role (props.reconcileReader): reads kfek's families, signs for `aoss`. */
  readonly reconcileRole?: iam.IRole;

  constructor(scope: Construct, id: string, props: ServerlessCollectionProps) {
    super(scope, id);
    const name = props.collectionName;
    if (!/^[a-z][a-z0-9-]{2,27}$/.test(name)) {
      throw new Error(
        `ServerlessCollection: collectionName ${JSON.stringify(name)} must be 3-28 lowercase letters, digits and ` +
          "hyphens starting with a letter (a collection's name rule); shorten the config's name or profile.",
      );
    }
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
    const s = props.settings;
    const standby = s.standbyReplicas ? 'ENABLED' : 'DISABLED';

    this.group = new aoss.CfnCollectionGroup(this, 'Group', {
      name,
      generation: 'NEXTGEN',
      standbyReplicas: standby,
      capacityLimits: {
        minIndexingCapacityInOcu: s.capacity.minIndexingOcu,
        maxIndexingCapacityInOcu: s.capacity.maxIndexingOcu,
        minSearchCapacityInOcu: s.capacity.minSearchOcu,
        maxSearchCapacityInOcu: s.capacity.maxSearchOcu,
      },
      description: `kfek ${name}: scales to ${s.capacity.minIndexingOcu}/${s.capacity.minSearchOcu} OCU when idle`,
    });

    const [encryption, network] = this.securityPolicies(name);

    this.collection = new aoss.CfnCollection(this, 'Collection', {
      name,
      type: s.collectionType,
      standbyReplicas: standby,
      collectionGroupName: this.group.name,
      description: `kfek ${name}: the logs (SEARCH keeps kfek's document ids)`,
    });
    this.collection.addResourceDependency(encryption);
    this.collection.addResourceDependency(network);
    this.collection.addResourceDependency(this.group);
    this.collection.applyRemovalPolicy(removalPolicy);
    this.collectionEndpoint = this.collection.attrCollectionEndpoint;
    this.collectionArn = this.collection.attrArn;

    const roles = this.dataPlaneRoles(name, props.adminRole, props.reconcileReader === true);
    this.writerRole = roles.writer;
    this.retentionRole = roles.retention;
    const reconciler = roles.reconciler;
    this.reconcileRole = reconciler;

    this.accessPolicy = new aoss.CfnAccessPolicy(this, 'DataAccessPolicy', {
      name: `${name}-acc`,
      type: 'data',
      policy: Stack.of(this).toJsonString(
        collectionAccessPolicy({
          collection: name,
          writers: [this.writerRole.roleArn],
          retainers: [this.retentionRole.roleArn],
          admins: [...(props.adminPrincipals ?? [])],
          provisioners: [props.adminRole.roleArn],
          families: props.families,
          // The indexer reads its route pairs there; the reconcile function, the template hashes.
          recordIndex: registryIndex(OPENSEARCH_SPEC_DEFAULTS.name),
          ...(reconciler === undefined ? {} : { reconcilers: [reconciler.roleArn] }),
        }),
      ),
    });
  }

  /**
   * The roles that reach the data plane, each admitted by IAM to this collection only (`aoss:APIAccessAll`); the data
   * access policy then decides per index: the indexer's writer, the retention function's, and with `reconcileReader`
   * the reconcile function's reader. The admin role is admitted too.
   */
  private dataPlaneRoles(
    name: string,
    adminRole: iam.IRole,
    reconcileReader: boolean,
  ): { writer: iam.IRole; retention: iam.IRole; reconciler: iam.IRole | undefined } {
    const admit = (role: iam.IRole): void => {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['aoss:APIAccessAll'], resources: [this.collectionArn] }),
      );
    };
    const lambdaRole = (roleId: string, description: string): iam.Role => {
      const role = new iam.Role(this, roleId, {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: `kfek ${name}: ${description}`,
      });
      admit(role);
      return role;
    };
    admit(adminRole);
    return {
      writer: lambdaRole('WriterRole', "the direct-delivery indexer writes the collection's kfek indices"),
      retention: lambdaRole(
        'RetentionRole',
        "the scheduled retention function deletes kfek's indices past retention",
      ),
      reconciler: reconcileReader
        ? lambdaRole('ReconcileRole', "the scheduled reconcile function reads the collection's kfek indices")
        : undefined,
    };
  }

  /**
   * The collection's encryption policy (an AWS-owned key) and network policy (public endpoint and Dashboards; the
   * data access policy and SigV4 gate every request), which must exist before the collection.
   */
  private securityPolicies(name: string): [aoss.CfnSecurityPolicy, aoss.CfnSecurityPolicy] {
    const encryption = new aoss.CfnSecurityPolicy(this, 'EncryptionPolicy', {
      name: `${name}-enc`,
      type: 'encryption',
      policy: JSON.stringify({
        Rules: [{ ResourceType: 'collection', Resource: [collectionResource(name)] }],
        AWSOwnedKey: true,
      }),
    });
    const network = new aoss.CfnSecurityPolicy(this, 'NetworkPolicy', {
      name: `${name}-net`,
      type: 'network',
      policy: JSON.stringify([
        {
          Rules: [
            { ResourceType: 'collection', Resource: [collectionResource(name)] },
            { ResourceType: 'dashboard', Resource: [collectionResource(name)] },
          ],
          AllowFromPublic: true,
        },
      ]),
    });
    return [encryption, network];
  }
}
