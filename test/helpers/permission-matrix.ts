/**
 * The permission matrix's model of one synthesized kfek app: every stack's template with its intrinsics resolved
 * to concrete ARNs (test/helpers/cfn-resolve.ts), resources found by construct path, and calls evaluated by
 * `@cloud-copilot/iam-simulate`.
 *
 * iam-simulate is AGPL-3.0-or-later: it is a devDependency used by tests only, never imported by lib/, lambda/ or
 * bin/, so it is never bundled or shipped.
 */
import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { CfnResource, Stack, Token } from 'aws-cdk-lib';
import { buildTestApp, type TestAppOptions, type TestApp } from './app';
import { CfnResolver, type CfnTemplate, type DeployTarget, type StackTemplate } from './cfn-resolve';

/** The account and region the matrix deploys to (any values: the templates are environment-agnostic). */
export const MATRIX_TARGET: DeployTarget = { account: '111122223333', region: 'eu-west-1' };
/** An account that is not the deployment's: nothing of it may assume a kfek role. */
export const OTHER_ACCOUNT = '444455556666';

/** An IAM policy document (as in a template, resolved). */
export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: readonly Record<string, unknown>[];
}

/** A policy with where it came from, for failure messages. */
export interface NamedPolicy {
  readonly name: string;
  readonly policy: PolicyDocument;
}

/** One resource of the app: its construct path, logical id, type and resolved properties. */
export interface AppResource {
  readonly stackName: string;
  readonly path: string;
  readonly logicalId: string;
  readonly type: string;
  /** Properties with every intrinsic resolved. */
  readonly properties: Readonly<Record<string, unknown>>;
}

/**
 * AWS managed policies that roles of the app attach. Their documents are not in any template, so the ones kfek
 * relies on are copied here from the AWS Managed Policy Reference; any other one fails the matrix.
 */
const AWS_MANAGED_POLICIES: Readonly<Record<string, PolicyDocument>> = {
  // https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSLambdaBasicExecutionRole.html
  'service-role/AWSLambdaBasicExecutionRole': {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: '*',
      },
    ],
  },
};

/** The model of one app: find resources, read their policies, evaluate calls. */
export class AppModel {
  readonly resolver: CfnResolver;
  readonly resources: readonly AppResource[];
  readonly account: string;
  readonly region: string;

  constructor(
    readonly testApp: TestApp,
    target: DeployTarget = MATRIX_TARGET,
    /**
     * The account of stacks whose account is left to the deploying credentials (the cross-account source stacks,
     * one template for every source account).
     * @default - `target.account`
     */
    readonly unpinnedAccount: string = target.account,
  ) {
    // Cached by the App after the first call: further models of the same app (other source accounts) reuse it.
    const assembly = testApp.app.synth();
    const stacks: StackTemplate[] = assembly.stacks.map((s) => ({
      stackName: s.stackName,
      template: s.template as CfnTemplate,
    }));
    // A stack pinned to an account or region (cross-account profiles) is resolved there; the rest in `target`.
    const stackTargets = new Map<string, DeployTarget>();
    for (const stack of testApp.app.node.children.filter((c): c is Stack => c instanceof Stack)) {
      const account = Token.isUnresolved(stack.account) ? unpinnedAccount : stack.account;
      const region = Token.isUnresolved(stack.region) ? target.region : stack.region;
      if (account !== target.account || region !== target.region) {
        stackTargets.set(stack.stackName, { ...target, account, region });
      }
    }
    this.resolver = new CfnResolver(stacks, target, stackTargets);
    this.account = target.account;
    this.region = target.region;
    const resources: AppResource[] = [];
    for (const stack of testApp.app.node.children.filter((c): c is Stack => c instanceof Stack)) {
      const template = stacks.find((s) => s.stackName === stack.stackName)?.template;
      if (template === undefined) throw new Error(`stack ${stack.stackName} was not synthesized`);
      for (const construct of stack.node.findAll()) {
        if (!CfnResource.isCfnResource(construct)) continue;
        const logicalId = stack.resolve(construct.logicalId) as string;
        const raw = template.Resources[logicalId];
        if (raw === undefined) continue;
        resources.push({
          stackName: stack.stackName,
          path: construct.node.path,
          logicalId,
          type: raw.Type,
          properties: this.resolver.resolve(stack.stackName, raw.Properties ?? {}) as Record<string, unknown>,
        });
      }
    }
    this.resources = resources;
  }

  /** The same app seen with its account-agnostic stacks (the cross-account source stacks) deployed in `account`. */
  inSourceAccount(account: string): AppModel {
    return new AppModel(this.testApp, this.resolver.target, account);
  }

  /** The one resource of `type` whose construct path starts with `pathPrefix` (e.g. `Search/RawStream`). */
  find(pathPrefix: string, type: string): AppResource {
    const found = this.findAll(type).filter(
      (r) => r.path === pathPrefix || r.path.startsWith(`${pathPrefix}/`),
    );
    if (found.length !== 1) {
      throw new Error(
        `expected one ${type} under ${pathPrefix}, found ${found.length}: ${found.map((r) => r.path).join(', ') || '-'}`,
      );
    }
    return found[0];
  }

  findAll(type: string): readonly AppResource[] {
    return this.resources.filter((r) => r.type === type);
  }

  /** The resource whose `Ref` or `Fn::GetAtt <attribute>` is `value` (e.g. the role a function names). */
  byValue(type: string, value: string, attribute = 'Arn'): AppResource {
    const found = this.findAll(type).filter(
      (r) => this.attr(r, attribute) === value || this.ref(r) === value,
    );
    if (found.length !== 1)
      throw new Error(`expected one ${type} with ${attribute} ${value}, found ${found.length}`);
    return found[0];
  }

  ref(r: AppResource): string {
    return this.resolver.attribute(r.stackName, r.logicalId);
  }

  attr(r: AppResource, attribute = 'Arn'): string {
    return this.resolver.attribute(r.stackName, r.logicalId, attribute);
  }

  /** Inline, attached (`AWS::IAM::Policy`) and AWS managed policies of a role. */
  identityPolicies(role: AppResource): readonly NamedPolicy[] {
    const name = this.ref(role);
    const policies: NamedPolicy[] = [];
    for (const inline of (role.properties.Policies ?? []) as {
      PolicyName: string;
      PolicyDocument: PolicyDocument;
    }[]) {
      policies.push({ name: `${role.path} inline ${inline.PolicyName}`, policy: inline.PolicyDocument });
    }
    for (const p of this.findAll('AWS::IAM::Policy')) {
      if (((p.properties.Roles ?? []) as string[]).includes(name)) {
        policies.push({ name: p.path, policy: p.properties.PolicyDocument as PolicyDocument });
      }
    }
    for (const arn of (role.properties.ManagedPolicyArns ?? []) as string[]) {
      const key = arn.replace(/^arn:aws:iam::aws:policy\//, '');
      const managed = AWS_MANAGED_POLICIES[key];
      if (managed === undefined) {
        throw new Error(
          `${role.path} attaches ${arn}, whose document the matrix does not know; add it to AWS_MANAGED_POLICIES`,
        );
      }
      policies.push({ name: arn, policy: managed });
    }
    return policies;
  }

  /** The role a Lambda function runs as. */
  functionRole(fn: AppResource): AppResource {
    return this.byValue('AWS::IAM::Role', fn.properties.Role as string);
  }

  trustPolicy(role: AppResource): NamedPolicy {
    return {
      name: `${role.path} trust policy`,
      policy: role.properties.AssumeRolePolicyDocument as PolicyDocument,
    };
  }

  keyPolicy(key: AppResource): NamedPolicy {
    return { name: `${key.path} key policy`, policy: key.properties.KeyPolicy as PolicyDocument };
  }

  /** The bucket policy of a bucket (by its `AWS::S3::BucketPolicy`), if any. */
  bucketPolicy(bucket: AppResource): NamedPolicy | undefined {
    const p = this.findAll('AWS::S3::BucketPolicy').find((b) => b.properties.Bucket === this.ref(bucket));
    return p && { name: p.path, policy: p.properties.PolicyDocument as PolicyDocument };
  }

  queuePolicy(queue: AppResource): NamedPolicy | undefined {
    const p = this.findAll('AWS::SQS::QueuePolicy').find((q) =>
      (q.properties.Queues as string[]).includes(this.ref(queue)),
    );
    return p && { name: p.path, policy: p.properties.PolicyDocument as PolicyDocument };
  }

  /** Every `AWS::SNS::TopicPolicy` of a topic, merged (SNS keeps one policy per topic). */
  topicPolicy(topic: AppResource): NamedPolicy | undefined {
    const p = this.findAll('AWS::SNS::TopicPolicy').filter((t) =>
      (t.properties.Topics as string[]).includes(this.ref(topic)),
    );
    if (p.length > 1)
      throw new Error(`${topic.path} has ${p.length} topic policies; CloudFormation keeps only one`);
    return p[0] && { name: p[0].path, policy: p[0].properties.PolicyDocument as PolicyDocument };
  }

  domainPolicy(domain: AppResource): NamedPolicy {
    return {
      name: `${domain.path} access policy`,
      policy: domain.properties.AccessPolicies as PolicyDocument,
    };
  }

  /** The account's CloudWatch Logs resource policies (account-wide), merged into one document. */
  logsResourcePolicy(): NamedPolicy | undefined {
    const all = this.findAll('AWS::Logs::ResourcePolicy');
    if (all.length === 0) return undefined;
    const statements = all.flatMap(
      (p) => (JSON.parse(p.properties.PolicyDocument as string) as PolicyDocument).Statement,
    );
    return {
      name: all.map((p) => p.path).join(' + '),
      policy: { Version: '2012-10-17', Statement: statements },
    };
  }
}

/** What the matrix expects of a call. */
export type Expectation = 'Allowed' | 'Denied';

/** One call across a service boundary, with every policy that takes part in deciding it. */
export interface Call {
  /** Who calls, by construct path or service (`Pipeline/Transform/Role`, `cloudwatch.amazonaws.com`). */
  readonly caller: string;
  /** The principal as IAM sees it: a role ARN or a service principal. */
  readonly principal: string;
  readonly action: string;
  /** The resource by construct path, for messages. */
  readonly resource: string;
  readonly resourceArn: string;
  /** @default - the deployment account */
  readonly resourceAccount?: string;
  readonly identityPolicies?: readonly NamedPolicy[];
  readonly resourcePolicy?: NamedPolicy;
  readonly context?: Readonly<Record<string, string | string[]>>;
  readonly expect: Expectation;
}

/** The outcome of one evaluated call. */
export interface Verdict {
  readonly call: Call;
  readonly decision: string;
  readonly ok: boolean;
}

/** Evaluates one call with iam-simulate. Validation errors of the simulator (bad action, bad ARN) are thrown. */
export async function evaluate(call: Call, account: string): Promise<Verdict> {
  const simulation: Simulation = {
    request: {
      principal: call.principal,
      action: call.action,
      resource: { resource: call.resourceArn, accountId: call.resourceAccount ?? account },
      contextVariables: { ...(call.context ?? {}) },
    },
    identityPolicies: (call.identityPolicies ?? []).map((p) => ({ name: p.name, policy: p.policy })),
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    ...(call.resourcePolicy === undefined ? {} : { resourcePolicy: call.resourcePolicy.policy }),
  };
  const result = await runSimulation(simulation, {});
  if (result.resultType === 'error') {
    throw new Error(`iam-simulate rejected ${describeCall(call)}: ${JSON.stringify(result.errors)}`);
  }
  const decision = result.overallResult;
  const ok = call.expect === 'Allowed' ? decision === 'Allowed' : decision !== 'Allowed';
  return { call, decision, ok };
}

/** `caller -> action on resource (arn)`: how a failed row names itself. */
export function describeCall(call: Call): string {
  const policies = [
    ...(call.identityPolicies ?? []).map((p) => `identity ${p.name}`),
    ...(call.resourcePolicy === undefined ? [] : [`resource ${call.resourcePolicy.name}`]),
  ];
  return (
    `${call.caller} (${call.principal}) -> ${call.action} on ${call.resource} (${call.resourceArn})` +
    (call.context === undefined ? '' : ` with ${JSON.stringify(call.context)}`) +
    ` [policies: ${policies.join('; ') || 'none'}]`
  );
}

/** Evaluates calls and returns one line per call that did not get its expected decision. */
export async function failures(calls: readonly Call[], account: string): Promise<string[]> {
  if (calls.length === 0) throw new Error('a matrix row produced no call: it could never fail');
  const verdicts = await Promise.all(calls.map((c) => evaluate(c, account)));
  return verdicts
    .filter((v) => !v.ok)
    .map((v) => `expected ${v.call.expect}, got ${v.decision}: ${describeCall(v.call)}`);
}

/** Builds and synthesizes an app for the matrix (bundling skipped, as in the other infra tests). */
export function matrixModel(options: TestAppOptions): AppModel {
  return new AppModel(buildTestApp(options));
}
