import { Annotations, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import { Construct } from 'constructs';
import { withDefaults, type WithDefaults } from '../defaults';

export interface SearchDomainProps {
  /** Domain name: 3-28 of a-z 0-9 -, starting with a letter. Fixed, so IAM and the access policy can name it. */
  readonly domainName: string;
  /** @default '2.19' */
  readonly engineVersion?: string;
  /** @default 't3.small.search' */
  readonly dataNodeInstanceType?: string;
  /** @default 1 */
  readonly dataNodeCount?: number;
  /** gp3 volume per data node (GiB). @default 10 */
  readonly volumeSizeGb?: number;
  /** @default - zone awareness off */
  readonly zoneAwareness?: { readonly enabled: boolean; readonly availabilityZoneCount: 2 | 3 };
  /** @default - no dedicated master nodes */
  readonly dedicatedMasters?: {
    readonly enabled: boolean;
    readonly instanceType: string;
    readonly count: number;
  };
  /**
   * ARN of the IAM role that is the fine-grained access control master user (`all_access` + `security_manager`).
   * An IAM master user turns the internal user database off (CloudFormation allows `MasterUserARN` only with
   * `InternalUserDatabaseEnabled: false`): there is no password to leak, rotate or lose, and every request is
   * SigV4-signed, which the access policy below requires anyway.
   */
  readonly masterUserArn: string;
  /** Retention of the slow, application and audit log groups. @default logs.RetentionDays.TWO_WEEKS */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE */
  readonly removalPolicy?: RemovalPolicy;
}

/** The engine line kfek's real-node tests run (docs/local.md, "Which OpenSearch runs where, and why"). */
export const TESTED_ENGINE_LINE = '2.19';

const DEFAULTS = {
  engineVersion: TESTED_ENGINE_LINE,
  dataNodeInstanceType: 't3.small.search',
  dataNodeCount: 1,
  volumeSizeGb: 10,
  zoneAwareness: { enabled: false, availabilityZoneCount: 2 as const },
  dedicatedMasters: { enabled: false, instanceType: 'm7g.large.search', count: 3 },
  logRetention: logs.RetentionDays.TWO_WEEKS,
  removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
};

/** The props with every default applied. */
type Resolved = WithDefaults<SearchDomainProps, typeof DEFAULTS>;

/**
 * An OpenSearch Service domain that is secure by default: encryption at rest, node-to-node encryption, HTTPS only
 * with TLS 1.2+, fine-grained access control with an IAM master user, an access policy that admits only requests
 * signed by IAM principals of this account (no IP-based or anonymous access), and slow,
 * application and audit logs published to log groups kfek owns (with the one CloudWatch Logs resource policy
 * they need, instead of CDK's custom-resource-managed one).
 */
export class SearchDomain extends Construct {
  readonly domain: opensearch.Domain;
  /** The domain's own log groups; an account-level subscription must exclude them (audit logs record every write). */
  readonly logGroups: readonly logs.LogGroup[];

  constructor(scope: Construct, id: string, props: SearchDomainProps) {
    super(scope, id);
    const p = withDefaults(DEFAULTS, props);
    this.validate(p);

    // Build.
    const logGroup = (lid: string): logs.LogGroup =>
      new logs.LogGroup(this, lid, { retention: p.logRetention, removalPolicy: p.removalPolicy });
    const slowSearch = logGroup('SlowSearchLogs');
    const slowIndex = logGroup('SlowIndexLogs');
    const app = logGroup('AppLogs');
    const audit = logGroup('AuditLogs');
    this.logGroups = [slowSearch, slowIndex, app, audit];

    // OpenSearch Service publishes logs under this resource policy.
    // https://docs.aws.amazon.com/opensearch-service/latest/developerguide/createdomain-configure-slow-logs.html
    // A resource policy's name is unique per account and region, and CDK's default name is the construct path,
    // the same in every profile: name it after the domain (itself unique per account and region) so a second
    // profile can deploy beside the first.
    const logsPolicy = new logs.ResourcePolicy(this, 'LogsResourcePolicy', {
      resourcePolicyName: `${p.domainName}-opensearch-logs`,
      policyStatements: [
        new iam.PolicyStatement({
          principals: [new iam.ServicePrincipal('es.amazonaws.com')],
          actions: ['logs:PutLogEvents', 'logs:CreateLogStream'],
          resources: this.logGroups.map((g) => g.logGroupArn),
          conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
        }),
      ],
    });

    this.domain = new opensearch.Domain(this, 'Domain', {
      domainName: p.domainName,
      version: opensearch.EngineVersion.openSearch(p.engineVersion),
      // Without UpdatePolicy.EnableVersionUpgrade, CloudFormation REPLACES a domain to change its EngineVersion:
      // a new, empty domain (or, with this fixed name, a refused update). With it, a new engineVersion is an
      // in-place upgrade (blue/green, the data stays).
      // https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-attribute-updatepolicy.html#cfn-attributes-updatepolicy-upgradeopensearchdomain
      enableVersionUpgrade: true,
      capacity: {
        dataNodes: p.dataNodeCount,
        dataNodeInstanceType: p.dataNodeInstanceType,
        ...(p.dedicatedMasters.enabled
          ? { masterNodes: p.dedicatedMasters.count, masterNodeInstanceType: p.dedicatedMasters.instanceType }
          : {}),
        // Multi-AZ with standby needs 3 zones and non-burstable types; this app sizes zones itself.
        multiAzWithStandbyEnabled: false,
      },
      ebs: { enabled: true, volumeSize: p.volumeSizeGb, volumeType: ec2.EbsDeviceVolumeType.GP3 },
      zoneAwareness: p.zoneAwareness.enabled
        ? { enabled: true, availabilityZoneCount: p.zoneAwareness.availabilityZoneCount }
        : { enabled: false },
      encryptionAtRest: { enabled: true },
      nodeToNodeEncryption: true,
      enforceHttps: true,
      tlsSecurityPolicy: opensearch.TLSSecurityPolicy.TLS_1_2,
      fineGrainedAccessControl: { masterUserArn: p.masterUserArn },
      logging: {
        slowSearchLogEnabled: true,
        slowSearchLogGroup: slowSearch,
        slowIndexLogEnabled: true,
        slowIndexLogGroup: slowIndex,
        appLogEnabled: true,
        appLogGroup: app,
        auditLogEnabled: true,
        auditLogGroup: audit,
      },
      suppressLogsResourcePolicy: true,
      removalPolicy: p.removalPolicy,
    });
    this.domain.node.addDependency(logsPolicy);

    this.setAccessPolicy(p.domainName);

    this.acknowledge(p);
  }

  /** Refuses what OpenSearch Service would refuse at deploy, and warns of an engine line kfek's tests do not run. */
  private validate(p: Resolved): void {
    if (!Token.isUnresolved(p.engineVersion) && p.engineVersion !== TESTED_ENGINE_LINE) {
      // A soft problem: AWS runs other versions, but what kfek proves (one bad document fails only itself, the
      // index template's storage and answers, the security roles) is proven on 2.19 only.
      Annotations.of(this).addWarningV2(
        'kfek:untested-engine-line',
        `engineVersion ${p.engineVersion} is not the line kfek's tests run (${TESTED_ENGINE_LINE}): its bulk, ` +
          'storage and access behaviour are unproven there (on 3.x OpenSearch also refuses a document nested ' +
          'deeper than 1,000 levels); see docs/local.md#which-opensearch-runs-where-and-why. A domain cannot be ' +
          'downgraded once upgraded.',
      );
    }

    // Validate.
    if (!Token.isUnresolved(p.domainName) && !/^[a-z][a-z0-9-]{2,27}$/.test(p.domainName)) {
      throw new Error(
        `SearchDomain ${this.node.path}: domainName ${JSON.stringify(p.domainName)} must be 3-28 characters of ` +
          'a-z, 0-9 and -, starting with a letter; shorten the config "name" or the profile name.',
      );
    }
    if (
      !Token.isUnresolved(p.masterUserArn) &&
      !/^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/.+$/.test(p.masterUserArn)
    ) {
      throw new Error(
        `SearchDomain ${this.node.path}: masterUserArn ${JSON.stringify(p.masterUserArn)} is not an IAM role or ` +
          'user ARN; pass role.roleArn of the role that provisions the domain.',
      );
    }
    if (p.zoneAwareness.enabled && p.dataNodeCount % p.zoneAwareness.availabilityZoneCount !== 0) {
      throw new Error(
        `SearchDomain ${this.node.path}: dataNodeCount ${p.dataNodeCount} is not a multiple of ` +
          `availabilityZoneCount ${p.zoneAwareness.availabilityZoneCount}; OpenSearch Service rejects it.`,
      );
    }
  }

  /**
   * The access policy, set on the L1 directly (not addAccessPolicies, which deploys a custom-resource Lambda); the
   * ARN is built from the fixed name, so there is no circular reference.
   */
  private setAccessPolicy(domainName: string): void {
    const stack = Stack.of(this);
    const domainPaths = `${stack.formatArn({ service: 'es', resource: 'domain', resourceName: domainName })}/*`;
    const httpActions = [
      'es:ESHttpGet',
      'es:ESHttpHead',
      'es:ESHttpPost',
      'es:ESHttpPut',
      'es:ESHttpPatch',
      'es:ESHttpDelete',
    ];
    const statements = [
      // The account itself: requests signed by IAM principals of this account whose identity policies allow them
      // (Firehose's role, the provisioner, people's roles). Nobody else, and no unsigned request: an unsigned request
      // would reach fine-grained access control as anonymous, which kfek never enables.
      new iam.PolicyStatement({
        principals: [new iam.AccountRootPrincipal()],
        actions: httpActions,
        resources: [domainPaths],
      }),
    ];
    const cfn = this.domain.node.defaultChild as opensearch.CfnDomain;
    cfn.accessPolicies = new iam.PolicyDocument({ statements }).toJSON() as unknown;
  }

  /** cdk-nag acknowledgements, each on the narrowest construct, and the soft problems a profile chose. */
  private acknowledge(p: Resolved): void {
    Validations.of(this.domain).acknowledge({
      id: 'AwsSolutions-OS1',
      reason:
        'Public endpoint on purpose: Firehose and people reach it without a VPC, NAT or VPN. HTTPS with TLS 1.2+, ' +
        'the access policy and fine-grained access control gate every request.',
    });
    Validations.of(this.domain).acknowledge({
      id: 'AwsSolutions-OS3',
      reason:
        'No IP allowlist on purpose: the access policy admits only requests signed by IAM principals of this ' +
        'account, and Firehose and the provisioner Lambda have no fixed address an allowlist could name.',
    });

    // Soft problems.
    if (!p.zoneAwareness.enabled) {
      Validations.of(this.domain).acknowledge({
        id: 'AwsSolutions-OS7',
        reason:
          'Zone awareness is a config choice (openSearch.zoneAwareness); this profile accepts one zone.',
      });
    }
    if (!p.dedicatedMasters.enabled) {
      Validations.of(this.domain).acknowledge({
        id: 'AwsSolutions-OS4',
        reason:
          'Dedicated masters are a config choice (openSearch.dedicatedMasters); this profile runs small.',
      });
    }
  }
}
