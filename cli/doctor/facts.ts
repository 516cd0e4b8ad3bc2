/**
 * Gathers what the checks need through small ports (one function per question to AWS), so tests run the same
 * gathering against moto, aws-sdk-client-mock or hand-written fakes. Each answer becomes a {@link Probe}: a failed
 * call is a finding, never an exception that hides the other checks.
 */
import type { DomainState } from '../../core/opensearch/domain-state';
import { type ServerlessName, serverlessNamesOf } from '../../core/opensearch/serverless-held';
import type { OpenSearchSpec } from '../../core/opensearch/spec';
import { messageOf } from '../../core/errors';
import type { AuthInfo } from '../proxy';
import { domainSpecs } from './domain';
import { retentionDecreases } from './stream-retention';
import type {
  BootstrapFacts,
  DeployedStack,
  DeployedTemplate,
  DoctorFacts,
  ExistingName,
  HeldName,
  InstanceFit,
  LambdaFacts,
  Probe,
} from './model';
import type { NamedResource, ProfilePlan } from './plan';
import { stackScope } from '../../core/change-plan/deploy-order';

/** One function per question; the AWS implementation is aws-ports.ts. */
export interface DoctorPorts {
  /** The region the SDK would use (flag, AWS_REGION, profile); rejects when none is set. */
  region(): Promise<string>;
  /** STS GetCallerIdentity: the caller's ARN. */
  callerArn(region: string): Promise<string>;
  /** Synthesizes the profile (or reads an assembly) for this account and region. */
  plan(region: string, account: string | undefined): Promise<ProfilePlan>;
  bootstrap(parameterName: string): Promise<BootstrapFacts>;
  lambdaLimits(): Promise<LambdaFacts>;
  instanceFit(
    role: InstanceFit['role'],
    instanceType: string,
    engineVersion: string,
    volumeType?: string,
  ): Promise<InstanceFit>;
  /**
   * Which of `names` exist in the account and region, and which stack owns each, looked for among the stacks
   * whose names start with `stackPrefix` (`kfek-`: every profile of this app).
   */
  existing(names: readonly NamedResource[], stackPrefix: string): Promise<readonly ExistingName[]>;
  /**
   * What the account holds under a serverless profile's collection and policy names, and which stack of this app
   * (by `stackPrefix`) owns each. @default - not asked: the names check is skipped
   */
  serverlessNames?(names: readonly ServerlessName[], stackPrefix: string): Promise<readonly HeldName[]>;
  /** Those of `stackNames` that exist. */
  stacks(stackNames: readonly string[]): Promise<readonly DeployedStack[]>;
  /** The templates of those of `stackNames` that exist. */
  deployedTemplates(stackNames: readonly string[]): Promise<readonly DeployedTemplate[]>;
  /** Destination ARNs of the log group's subscription filters; undefined when it does not exist. */
  subscriptionDestinations(logGroupName: string): Promise<readonly string[] | undefined>;
  /** `GET _plugins/_security/authinfo` on the domain, signed as the caller. */
  authInfo(dashboardsUrl: string, region: string): Promise<AuthInfo>;
  /** kfek's objects and indices in the domain (core/opensearch/domain-read.ts), signed as the caller. */
  /** `previous`: the deployed spec, whose names a domain without kfek's record adopts (core/opensearch/registry.ts). */
  domainState(
    dashboardsUrl: string,
    region: string,
    spec: OpenSearchSpec,
    previous?: OpenSearchSpec,
  ): Promise<DomainState>;
  /**
   * The most a GetRecords reader of the stream lagged over the last hour (CloudWatch
   * `GetRecords.IteratorAgeMilliseconds`, maximum); undefined without a datapoint.
   */
  iteratorAge(streamName: string): Promise<number | undefined>;
  /** Now, epoch milliseconds. @default Date.now */
  now?(): number;
}

/** Runs one question; a failure becomes `<what>: <first line of the error>`, so the finding says which call. */
async function probe<T>(what: string, call: () => Promise<T>): Promise<Probe<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error: `${what}: ${messageOf(error).split('\n')[0]}` };
  }
}

export interface GatherOptions {
  readonly profile: string;
  /** Do not synthesize: the checks that need the templates are skipped. */
  readonly skipSynth: boolean;
  /**
   * Called right before the profile is synthesized (not when it is skipped, or when no region is found first).
   * @default - nothing
   */
  readonly onSynth?: () => void;
}

/** Asks every question whose prerequisites are met; the order follows the dependencies. */
export async function gatherFacts(ports: DoctorPorts, options: GatherOptions): Promise<DoctorFacts> {
  const region = await probe('region', () => ports.region());
  if (!region.ok) return { profile: options.profile, region };
  const identity = await probe('STS GetCallerIdentity', () => ports.callerArn(region.value));
  const account = identity.ok ? /:(\d{12}):/.exec(identity.value)?.[1] : undefined;
  const plan = options.skipSynth
    ? undefined
    : await probe('cdk synth', () => {
        options.onSynth?.();
        return ports.plan(region.value, account);
      });
  const facts: DoctorFacts = {
    profile: options.profile,
    region,
    identity,
    ...(plan !== undefined ? { plan } : {}),
  };
  if (!identity.ok) return facts;
  const p = plan?.ok === true ? plan.value : undefined;
  const bootstrap = await probe('CDKToolkit stack / bootstrap parameter', () =>
    ports.bootstrap(p?.bootstrapParameter ?? '/cdk-bootstrap/hnb659fds/version'),
  );
  if (p === undefined) return { ...facts, bootstrap };

  const inScope = stackScope(p.stacks, account, region.value).inScope.map((s) => s.stackName);
  const gathered = await gatherAccountWide(ports, p, { ...facts, bootstrap }, inScope);
  if (gathered.stacks?.ok !== true) return gathered;
  return gatherDeployed(ports, p, gathered, { region: region.value, stacks: gathered.stacks.value });
}

/** The questions about the account that need only the plan, asked side by side. */
async function gatherAccountWide(
  ports: DoctorPorts,
  p: ProfilePlan,
  facts: DoctorFacts,
  inScope: readonly string[],
): Promise<DoctorFacts> {
  const domain = p.domain;
  const [lambda, instances, existing, stacks, deployedTemplates] = await Promise.all([
    probe('Lambda GetAccountSettings', () => ports.lambdaLimits()),
    domain === undefined
      ? undefined
      : probe('OpenSearch DescribeInstanceTypeLimits', () =>
          Promise.all([
            ports.instanceFit('data', domain.instanceType, domain.engineVersion, domain.volumeType),
            ...(domain.masterInstanceType !== undefined
              ? [ports.instanceFit('master', domain.masterInstanceType, domain.engineVersion)]
              : []),
          ]),
        ),
    probe('looking for existing resources', () => ports.existing(p.namedResources, appStackPrefix(p))),
    probe('CloudFormation DescribeStacks', () => ports.stacks(Object.values(p.stackNames))),
    probe('CloudFormation GetTemplate', () => ports.deployedTemplates(inScope)),
  ]);
  const serverless = p.collection;
  const serverlessNames =
    serverless === undefined || ports.serverlessNames === undefined
      ? undefined
      : await probe(
          'looking for existing collections and policies',
          async () => (await ports.serverlessNames?.(serverlessNamesOf(serverless), appStackPrefix(p))) ?? [],
        );
  return {
    ...facts,
    lambda,
    ...(instances !== undefined ? { instances } : {}),
    existing,
    ...(serverlessNames !== undefined ? { serverlessNames } : {}),
    stacks,
    deployedTemplates,
  };
}

/** The questions about what is deployed: the subscriptions, the domain's access and objects, the streams' lag. */
async function gatherDeployed(
  ports: DoctorPorts,
  p: ProfilePlan,
  gathered: DoctorFacts,
  { region, stacks }: { readonly region: string; readonly stacks: readonly DeployedStack[] },
): Promise<DoctorFacts> {
  const deployed = new Set(stacks.map((s) => s.stackName));
  const search = stacks.find((s) => s.stackName === p.stackNames.Search);
  const subscriptions =
    p.stackNames.Sources !== undefined && deployed.has(p.stackNames.Sources)
      ? await probe('Logs DescribeSubscriptionFilters', () =>
          Promise.all(
            p.subscriptions.map(async (s) => ({
              logGroupName: s.logGroupName,
              destinationArns: await ports.subscriptionDestinations(s.logGroupName),
            })),
          ),
        )
      : undefined;
  const dashboardsUrl = search?.outputs.DashboardsUrl;
  const authInfo =
    dashboardsUrl !== undefined
      ? await probe('OpenSearch authinfo', () => ports.authInfo(dashboardsUrl, region))
      : undefined;
  const lowered = retentionDecreases({ ...gathered }, p);
  const streamLag =
    lowered.length === 0
      ? undefined
      : await probe('CloudWatch GetMetricStatistics GetRecords.IteratorAgeMilliseconds', () =>
          Promise.all(
            lowered.map(async (l) => ({
              streamName: l.streamName,
              maxIteratorAgeMillis: await ports.iteratorAge(l.streamName),
            })),
          ),
        );
  const now = ports.now?.() ?? Date.now();
  const { spec, previous } = domainSpecs({ ...gathered, now }, p);
  const domainState =
    dashboardsUrl !== undefined && spec !== undefined
      ? await probe("reading kfek's objects in OpenSearch", () =>
          ports.domainState(dashboardsUrl, region, spec, previous),
        )
      : undefined;
  return {
    ...gathered,
    now,
    ...(subscriptions !== undefined ? { subscriptions } : {}),
    ...(authInfo !== undefined ? { authInfo } : {}),
    ...(domainState !== undefined ? { domain: domainState } : {}),
    ...(streamLag !== undefined ? { streamLag } : {}),
  };
}

/** `kfek-` of `kfek-sandbox-search`: the part of the stack names before the profile, shared by all profiles. */
export function appStackPrefix(plan: ProfilePlan): string {
  const name = Object.values(plan.stackNames)[0] ?? '';
  const at = name.indexOf(`-${plan.profile}-`);
  return at < 0 ? name : name.slice(0, at + 1);
}
