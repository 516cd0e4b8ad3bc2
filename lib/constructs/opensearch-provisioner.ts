/**
 * The OpenSearch provisioner: its function, the provider, the custom resource and the least-privilege grants it
 * needs on the domain (class comment below). Why one file of about 350 lines: the grants (which paths it may PUT
 * and DELETE) and the spec the resource carries are one contract with lambda/opensearch-provisioner; kept side by
 * side so a new object kfek writes gets its grant in the same change.
 */
import * as path from 'node:path';
import { CustomResource, Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { withDefaults } from '../defaults';
import { LOCAL_ESBUILD_BUNDLING, PROJECT_ROOT } from './bundling';
import { flattenCfnReference } from '../nag';
import { buildSavedObjects } from '../../core/opensearch/dashboards';
import { buildIndexTemplate } from '../../core/opensearch/index-template';
import { buildIngestPipeline } from '../../core/opensearch/ingest-pipeline';
import { buildIsmPolicy } from '../../core/opensearch/ism-policy';
import { registryPaths } from '../../core/opensearch/registry';
import { ADMIN_ROLES, buildSecurityRoles, DASHBOARDS_USER_ROLE } from '../../core/opensearch/security';
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

export interface OpenSearchProvisionerProps {
  /** The domain to provision (the Search stack's); exactly one of this and {@link collection}. @default - none */
  readonly domain?: opensearch.IDomain;
  /**
   * The OpenSearch Serverless collection to provision instead (issue 42, docs/serverless.md): only kfek's index
   * templates and its record, signed for `aoss` (core/opensearch/serverless-provision.ts). The role must be in the
   * collection's data access policy and have `aoss:APIAccessAll` on it (lib/constructs/serverless-collection.ts
   * grants both to its admin role).
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

/** The domain paths (below the domain ARN) the provisioner may write and delete: see {@link provisionerPaths}. */
export interface ProvisionerPaths {
  /** es:ESHttpPut and es:ESHttpPost. */
  readonly writes: readonly string[];
  /** es:ESHttpDelete: kfek's objects, never an index (ISM deletes indices). */
  readonly deletes: readonly string[];
  /**
   * es:ESHttpDelete refused even where `deletes` matches: a list (`a,b`, also escaped) is never one of kfek's names,
   * since the request-path builder refuses a `,` in every name and kfek deletes one object per request; IAM's `*`
   * matches a `,`, so without this `kfek-*` would admit `kfek-a,victim`.
   */
  readonly deniedDeletes: readonly string[];
}

/** The provisioner's grants on a domain: read its path space, write and delete only kfek's names. */
function domainStatements(domain: opensearch.IDomain, paths: ProvisionerPaths): iam.PolicyStatement[] {
  return [
    // Reads on this domain only. The `/*` wildcard is the domain's own path space: the provisioner lists what the
    // domain holds (templates, indices, roles, saved objects) to tell kfek's objects from the others.
    new iam.PolicyStatement({
      actions: ['es:ESHttpGet', 'es:ESHttpHead'],
      resources: [domain.domainArn, `${domain.domainArn}/*`],
    }),
    // Writes and deletes only kfek's own names (provisionerPaths): never an index, never someone else's object.
    new iam.PolicyStatement({
      actions: ['es:ESHttpPut', 'es:ESHttpPost'],
      resources: paths.writes.map((path) => `${domain.domainArn}/${path}`),
    }),
    new iam.PolicyStatement({
      actions: ['es:ESHttpDelete'],
      resources: paths.deletes.map((path) => `${domain.domainArn}/${path}`),
    }),
    new iam.PolicyStatement({
      effect: iam.Effect.DENY,
      actions: ['es:ESHttpDelete'],
      resources: paths.deniedDeletes.map((path) => `${domain.domainArn}/${path}`),
    }),
  ];
}

/**
 * What the provisioner may change, by kfek's own names (issue 39): templates, pipelines and ISM policies
 * `<name>-*`, roles and role mappings `<name>_*`, saved objects `<name>-*`, the built-in roles' mappings kfek adds
 * people to, the security audit config, and the dynamic settings of the profile's stems' indices. So a mistake in
 * the code (a path built from someone else's name) is refused by IAM as well.
 *
 * What IAM matching relies on (the AWS docs on identity-based policies for OpenSearch Service,
 * https://docs.aws.amazon.com/opensearch-service/latest/developerguide/ac.html): the resource of an es:ESHttp* call
 * is the domain ARN followed by the request path, and `*` in a policy's resource matches any characters, `/`
 * included. The path IAM sees is the one sent, after the signer resolved `.`/`..` segments: a `..` can move a
 * request out of kfek's names but never into them, and kfek's names never hold one (core/opensearch/request-path.ts).
 * ISM's `add` and `change_policy` stay open: they name indices of retired stems IAM cannot know at synth, and attach
 * only the policy the body names.
 */
export function provisionerPaths(name: string, stems: readonly string[]): ProvisionerPaths {
  const security = '_plugins/_security/api';
  const owned = [
    `_index_template/${name}-*`,
    `_ingest/pipeline/${name}-*`,
    `_plugins/_ism/policies/${name}-*`,
    `${security}/roles/${name}_*`,
    `${security}/rolesmapping/${name}_*`,
  ];
  return {
    writes: [
      ...owned,
      ...[DASHBOARDS_USER_ROLE, ...ADMIN_ROLES].map((role) => `${security}/rolesmapping/${role}`),
      `${security}/audit/config`,
      '_plugins/_ism/add/*',
      '_plugins/_ism/change_policy/*',
      ...[...new Set(stems)].map((stem) => `${stem}-*/_settings`),
      '_dashboards/api/saved_objects/_bulk_create',
      // kfek's record of what it owns (core/opensearch/registry.ts): the hidden index, then its one document.
      ...registryPaths(name),
    ],
    deletes: [...owned, `_dashboards/api/saved_objects/*/${name}-*`],
    deniedDeletes: ['*,*', '*%2c*', '*%2C*'],
  };
}

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
    const specInput: OpenSearchSpecInput = {
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
    const statements = [
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
      ...(props.domain === undefined ? [] : domainStatements(props.domain, paths)),
    ];
    // A separate Policy in this construct, so it also works for a role imported or created in another stack.
    const policy = new iam.Policy(this, 'Policy', { statements, roles: [this.role] });

    this.function = new nodejs.NodejsFunction(this, 'Function', {
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
    // cdk-nag acknowledgements, each on the narrowest construct. The wildcard ids are granular and contain
    // resolved references (a cross-stack domain ARN becomes an import), so they are computed in a validation that
    // runs after the app is prepared, as lib/nag.ts does for role default policies.
    Validations.of(this.function).acknowledge(
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'Invoked synchronously by the custom resource provider; a failure goes back to CloudFormation, which ' +
          'fails the deployment. There is no event to dead-letter.',
      },
      {
        id: 'Serverless-LambdaTracing',
        reason:
          'Runs once per deployment; its log group records every request and status, X-Ray would add nothing.',
      },
    );
    // The framework function of cr.Provider is CDK's: its role, runtime, memory and missing DLQ are not ours to set.
    Validations.of(provider).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          'The cr.Provider framework function role uses AWSLambdaBasicExecutionRole; CDK owns that role.',
      },
      { id: 'AwsSolutions-L1', reason: 'CDK picks the runtime of the cr.Provider framework function.' },
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'The provider framework is invoked synchronously by CloudFormation; failures are reported to it.',
      },
      {
        id: 'Serverless-LambdaDefaultMemorySize',
        reason:
          'CDK sets the memory of the cr.Provider framework function; it only relays one call per deploy.',
      },
      { id: 'Serverless-LambdaTracing', reason: 'CDK configures the cr.Provider framework function.' },
    );
    const domain = props.domain;
    const domainPaths = domain === undefined ? undefined : `${domain.domainArn}/*`;
    const functionVersions = `${this.function.functionArn}:*`;
    this.node.addValidation({
      validate: () => {
        const flat = (value: string): string => flattenCfnReference(stack.resolve(value));
        if (domain === undefined || domainPaths === undefined) return acknowledgeProvider();
        Validations.of(policy).acknowledge({
          id: `AwsSolutions-IAM5[Resource::${flat(domainPaths)}]`,
          reason:
            'The paths of this one domain (index templates, _plugins, _dashboards): the provisioner calls several ' +
            'APIs IAM cannot name in advance, and fine-grained access control authorizes each request.',
        });
        for (const path of new Set([...paths.writes, ...paths.deletes].filter((p) => p.includes('*')))) {
          Validations.of(policy).acknowledge({
            id: `AwsSolutions-IAM5[Resource::${flat(`${domain.domainArn}/${path}`)}]`,
            reason:
              'Writes and deletes of the objects named by kfek (its name, its stems) under this one path of this ' +
              'domain; no index path but the dynamic settings of its stems: the provisioner never deletes an index.',
          });
        }
        return acknowledgeProvider();
      },
    });
    const acknowledgeProvider = (): string[] => {
      Validations.of(provider).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${flattenCfnReference(stack.resolve(functionVersions))}]`,
        reason:
          'The cr.Provider framework may invoke any version of the provisioner function and nothing else.',
      });
      return [];
    };
  }
}
