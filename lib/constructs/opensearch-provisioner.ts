/**
 * The OpenSearch provisioner: its function, the provider, the custom resource and the spec it carries (class comment
 * below). The least-privilege grants it needs on the domain (which paths it may PUT and DELETE) are in
 * ./opensearch-provisioner-grants.ts: with the spec they are one contract with lambda/opensearch-provisioner, so a
 * new object kfek writes gets its grant in the same change.
 */
import * as path from 'node:path';
import { CustomResource, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { withDefaults } from '../defaults';
import { LOCAL_ESBUILD_BUNDLING, PROJECT_ROOT } from './bundling';
import {
  acknowledgeProvisionerFindings,
  provisionerPaths,
  provisionerStatements,
} from './opensearch-provisioner-grants';
import { buildSavedObjects } from '../../core/opensearch/dashboards';
import { buildIndexTemplate } from '../../core/opensearch/index-template';
import { buildIngestPipeline } from '../../core/opensearch/ingest-pipeline';
import { buildIsmPolicy } from '../../core/opensearch/ism-policy';
import { buildSecurityRoles } from '../../core/opensearch/security';
import {
  contentHash,
  OPENSEARCH_SPEC_DEFAULTS,
  resolveOpenSearchSpec,
  type IndexTemplateSettings,
  templateSettingsInput,
  type OpenSearchSpecInput,
  type RetentionSettings,
  type RouteSpecInput,
} from '../../core/opensearch/spec';

function buildPayloads(input: OpenSearchSpecInput): unknown {
  const spec = resolveOpenSearchSpec({
    ...input,
    // A role created in this app (the reconcile function's) is a token until deploy: a stable placeholder keeps the
    // hash the same from one synth to the next.
    ...(input.routes === undefined
      ? {}
      : {
          routes: input.routes.map((route) => ({
            ...route,
            readerBackendRoles: (route.readerBackendRoles ?? []).map((r, i) =>
              Token.isUnresolved(r) ? `ROUTE_ROLE_${i}` : r,
            ),
          })),
        }),
    access: {
      firehoseRoleArn: 'FIREHOSE_ROLE_ARN',
      readerBackendRoles: (input.access?.readerBackendRoles ?? []).map((r, i) =>
        Token.isUnresolved(r) ? `ROLE_${i}` : r,
      ),
      readerUsers: input.access?.readerUsers ?? [],
      adminBackendRoles: (input.access?.adminBackendRoles ?? []).map((r, i) =>
        Token.isUnresolved(r) ? `ADMIN_ROLE_${i}` : r,
      ),
      reconcileBackendRoles: (input.access?.reconcileBackendRoles ?? []).map((r, i) =>
        Token.isUnresolved(r) ? `RECONCILE_ROLE_${i}` : r,
      ),
    },
  });
  return {
    pipeline: buildIngestPipeline(spec),
    template: buildIndexTemplate(spec),
    ism: buildIsmPolicy(spec),
    routes: spec.routes.map((route) => ({
      template: buildIndexTemplate(spec, route),
      ism: buildIsmPolicy(spec, route),
    })),
    security: buildSecurityRoles(spec),
    dashboards: buildSavedObjects(spec),
  };
}

/** The spec the resource carries: the props in the applier's terms, optional parts only when set (the hash holds). */
function specInputOf(props: OpenSearchProvisionerProps): OpenSearchSpecInput {
  return {
    indexPrefix: props.indexPrefix,
    ...(props.indexTemplate === undefined
      ? {}
      : { indexTemplate: templateSettingsInput(props.indexTemplate) }),
    ...(props.retention === undefined ? {} : { retention: props.retention }),
    ...(props.auditLogs === undefined ? {} : { auditLogs: props.auditLogs }),
    ...(props.routes === undefined || props.routes.length === 0 ? {} : { routes: props.routes }),
    ...(props.keepRetiredHours === undefined ? {} : { keepRetiredHours: props.keepRetiredHours }),
    access: {
      // The spec keeps its field name (the writer's ARN, Firehose's when it was the only writer) so its hash holds.
      firehoseRoleArn: props.writerRole.roleArn,
      ...(props.writerBackendRoles === undefined || props.writerBackendRoles.length === 0
        ? {}
        : { writerBackendRoles: props.writerBackendRoles }),
      readerBackendRoles: props.readerBackendRoles ?? [],
      readerUsers: props.readerUsers ?? [],
      adminBackendRoles: props.adminBackendRoles ?? [],
      // Only when there is a reconcile function, so a profile without one keeps its spec (and hash) as before.
      ...(props.reconcileBackendRoles === undefined || props.reconcileBackendRoles.length === 0
        ? {}
        : { reconcileBackendRoles: props.reconcileBackendRoles }),
    },
  };
}

export interface OpenSearchProvisionerProps {
  /** The domain to provision (the Search stack's); exactly one of this and {@link collection}. @default - none */
  readonly domain?: opensearch.IDomain;
  /**
   * The OpenSearch Serverless collection to provision instead (issue 42, docs/serverless.md): only kfek's index
   * templates and its record, signed for `aoss` (core/opensearch/serverless-provision.ts). The role must be in the
   * collection's data access policy and have `aoss:APIAccessAll` on it (lib/constructs/serverless-collection.ts
   * grants both to the Search stack's admin role, the policy's provisioner: templates and the record only).
   * @default - none
   */
  readonly collection?: { readonly endpoint: string; readonly arn: string };
  /** Index name prefix Firehose writes to (config `delivery.indexPrefix`); everything covers `<prefix>-*`. */
  readonly indexPrefix: string;
  /** Config `openSearch.indexTemplate`. @default - 1 shard, 1 replica, 1000 fields */
  readonly indexTemplate?: IndexTemplateSettings;
  /** Config `openSearch.retention`. @default - delete after 30 days */
  readonly retention?: RetentionSettings;
  /** Config `openSearch.auditLogs`: turn the security plugin's audit logging on or off. @default true */
  readonly auditLogs?: boolean;
  /**
   * The role the delivery writes with (Firehose's, or the indexer's with `delivery.mode: direct`); mapped to the
   * least-privilege writer role.
   */
  readonly writerRole: iam.IRole;
  /**
   * Further IAM role ARNs mapped to the writer role: the other delivery's fixed-name role, so a switch of delivery
   * never takes access from the reader that runs until CloudFormation removes it. @default - none
   */
  readonly writerBackendRoles?: readonly string[];
  /** Backend roles (IAM role ARNs, SAML groups) mapped to the read-only role. @default - none */
  readonly readerBackendRoles?: readonly string[];
  /** Internal users mapped to the read-only role. @default - none */
  readonly readerUsers?: readonly string[];
  /**
   * IAM role/user ARNs of people mapped to `all_access` and `security_manager` (merged into the existing mappings,
   * which keep the master user). @default - none
   */
  readonly adminBackendRoles?: readonly string[];
  /**
   * The reconcile function's role ARNs, mapped to `<name>_reconcile` (lists index templates, to find every stem kfek
   * keeps). Map the same ARNs as readers for the indices. @default - none
   */
  readonly reconcileBackendRoles?: readonly string[];
  /**
   * Routes (config `routes`): per route an index template, ISM policy, reader role and Dashboards index pattern,
   * the writer role extended to the route's indices, and the route in the ingest pipeline's table.
   * @default - none
   */
  readonly routes?: readonly RouteSpecInput[];
  /**
   * How long (hours) a route name, stem or prefix that left the profile stays known after its last index is gone
   * (core/opensearch/domain-families.ts): documents marked with it may still be in a stream or be replayed.
   * @default 0 - forgotten on the first deploy after its last index is gone
   */
  readonly keepRetiredHours?: number;
  /**
   * The role the provisioner runs as and signs its requests (SigV4) with; see the class comment. Make it the
   * domain's master user (`fineGrainedAccessControl.masterUserArn: role.roleArn`, e.g. a role the Search stack
   * creates).
   * @default - a new role; it must then be mapped to all_access and security_manager by hand
   */
  readonly role?: iam.IRole;
  /**
   * Create the starter Dashboards objects (index pattern, saved search, visualizations, dashboard).
   * @default true
   */
  readonly dashboards?: boolean;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.DESTROY (the log group only holds provisioning runs) */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * Names of the provisioner's and its provider's log groups (fixed names let other stacks exclude them from an
   * account-level subscription without importing them).
   * @default - names CloudFormation generates
   */
  readonly logGroupNames?: { readonly provisioner: string; readonly provider: string };
}
export { provisionerPaths, type ProvisionerPaths } from './opensearch-provisioner-grants';

const DEFAULTS = {
  dashboards: true,
  logRetention: logs.RetentionDays.ONE_MONTH,
  logRemovalPolicy: RemovalPolicy.DESTROY,
} as const;

/**
 * Applies kfek's index template, ISM retention policy, security roles and role mappings, and Dashboards objects to
 * the domain at deploy time, through a custom resource (Provider framework) backed by a small Lambda
 * (lambda/opensearch-provisioner/handler.ts, the same applier `npm start` uses locally).
 *
 * Make the Firehose delivery stream depend on {@link resource}: the template must exist before the first index is
 * created, and the writer role mapping is what lets Firehose in.
 *
 * Fine-grained access control: the security REST API (roles, role mappings) is only open to the master user or to
 * users mapped to `all_access` plus `security_manager`, and nobody can create that mapping before the first run.
 * So the provisioner must BE the master user: it runs as {@link OpenSearchProvisionerProps.role}, the domain's master
 * user (`masterUserArn`), and signs with SigV4, which the domain access policy (signed requests of the account only)
 * admits. (An internal master user with a password in Secrets Manager was removed with the config's
 * `openSearch.access.masterUserName`.)
 */
export class OpenSearchProvisioner extends Construct {
  /** The custom resource; Firehose's delivery stream should depend on it. */
  public readonly resource: CustomResource;
  public readonly function: nodejs.NodejsFunction;
  public readonly role: iam.IRole;
  public readonly logGroup: logs.LogGroup;
  /**
   * Both log groups (the function's and the Provider framework's): an account-level subscription must exclude them.
   */
  public readonly logGroups: readonly logs.ILogGroup[];
  /** Hash of the spec, a property of the resource so a config change re-applies. */
  public readonly specHash: string;

  constructor(scope: Construct, id: string, props: OpenSearchProvisionerProps) {
    super(scope, id);
    const p = withDefaults(DEFAULTS, props);
    if ((props.domain === undefined) === (props.collection === undefined)) {
      throw new Error(`OpenSearchProvisioner ${this.node.path}: give exactly one of domain and collection.`);
    }
    // Validate: the same checks the applier runs, at synth, with the same messages.
    const specInput = specInputOf(props);
    if (!Token.isUnresolved(props.indexPrefix)) {
      resolveOpenSearchSpec(specInput);
    }
    const dashboards = p.dashboards;

    // Build.
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      logGroupName: props.logGroupNames?.provisioner,
      retention: p.logRetention,
      removalPolicy: p.logRemovalPolicy,
    });
    // An own role (unless one is given) instead of the default one, whose AWSLambdaBasicExecutionRole managed policy
    // may write to any log group of the account.
    this.role =
      props.role ??
      new iam.Role(this, 'Role', {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: 'kfek OpenSearch provisioner (index template, ISM, security roles, Dashboards)',
      });
    const paths = provisionerPaths(specInput.name ?? OPENSEARCH_SPEC_DEFAULTS.name, [
      props.indexPrefix,
      ...(props.routes ?? []).map((route) => route.indexStem),
    ]);
    const statements = provisionerStatements(this.logGroup.logGroupArn, props.domain?.domainArn, paths);
    // A separate Policy in this construct, so it also works for a role imported or created in another stack.
    const policy = new iam.Policy(this, 'Policy', { statements, roles: [this.role] });
    this.function = this.createFunction();
    // The policy must be attached before the function runs.
    this.function.node.addDependency(policy);

    const providerLogGroup = new logs.LogGroup(this, 'ProviderLogGroup', {
      logGroupName: props.logGroupNames?.provider,
      retention: p.logRetention,
      removalPolicy: p.logRemovalPolicy,
    });
    this.logGroups = [this.logGroup, providerLogGroup];
    const provider = new cr.Provider(this, 'Provider', {
      onEventHandler: this.function,
      logGroup: providerLogGroup,
    });

    // Wire. The spec travels as one JSON string: CloudFormation turns numbers in properties into strings.
    const stack = Stack.of(this);
    const specJson = stack.toJsonString(specInput);
    this.specHash = contentHash({
      specInput: stack.resolve(specInput) as unknown,
      dashboards,
      // The payloads the applier will send, so a change of the builders (a new mapping, a new permission) also
      // re-applies on the next deploy, not only a change of config. Tokens are replaced by a fixed placeholder.
      payloads: Token.isUnresolved(props.indexPrefix) ? null : buildPayloads(specInput),
    });
    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::KfekOpenSearchProvisioning',
      properties: {
        ...(props.collection === undefined
          ? { DomainEndpoint: props.domain?.domainEndpoint }
          : { CollectionEndpoint: props.collection.endpoint }),
        Spec: specJson,
        SpecHash: this.specHash,
        Dashboards: String(dashboards),
      },
    });
    acknowledgeProvisionerFindings({
      scope: this,
      function: this.function,
      provider,
      policy,
      domainArn: props.domain?.domainArn,
      paths,
    });
  }

  /** The provisioner's function, running as {@link role}, logging to {@link logGroup}. */
  private createFunction(): nodejs.NodejsFunction {
    return new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, 'lambda', 'opensearch-provisioner', 'handler.ts'),
      handler: 'onEvent',
      description: 'kfek: applies the OpenSearch index template, ISM policy, roles and Dashboards objects',
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 256,
      // A fresh domain can answer 503 for a minute; the client retries with backoff inside this budget.
      timeout: Duration.minutes(5),
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      environment: { NODE_OPTIONS: '--enable-source-maps' },
      ...LOCAL_ESBUILD_BUNDLING,
    });
  }
}
