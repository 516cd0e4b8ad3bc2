/**
 * The doctor's ports over the AWS SDK (create-ports.ts wires them to real clients). Each port is built from one client, so a test can point most of them at
 * moto and replace the few whose API moto lacks (see test/cli/doctor/aws-ports.test.ts) with aws-sdk-client-mock.
 *
 * One file (over ~300 lines) on purpose: each port is a few lines over one client, and keeping them together keeps
 * the moto / mock seam in one place.
 */
import {
  CloudFormationClient,
  DescribeStacksCommand,
  GetTemplateCommand,
  type Stack,
} from '@aws-sdk/client-cloudformation';
import {
  CloudWatchLogsClient,
  DescribeAccountPoliciesCommand,
  DescribeLogGroupsCommand,
  DescribeResourcePoliciesCommand,
  DescribeSubscriptionFiltersCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { GetAccountSettingsCommand, LambdaClient } from '@aws-sdk/client-lambda';
import {
  DescribeDomainCommand,
  DescribeInstanceTypeLimitsCommand,
  OpenSearchClient,
  type OpenSearchPartitionInstanceType,
} from '@aws-sdk/client-opensearch';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { errorName } from '../../core/aws/errors';
import { asTemplate } from '../../core/change-plan';
import { readDomainFor } from '../../core/opensearch/domain-read';
import { createHttpClient, type OpenSearchHttpClient } from '../../core/opensearch/http';
import { isMissingStack } from '../aws';
import { CliError } from '../errors';
import { type AuthInfo, parseAuthInfo } from '../proxy';
import type {
  BootstrapFacts,
  DeployedStack,
  DeployedTemplate,
  ExistingName,
  InstanceFit,
  LambdaFacts,
} from './model';
import { iteratorAgePort } from './cloudwatch-port';
import type { DoctorPorts } from './facts';
import type { NamedResource } from './plan';
import { ownerIn, stackOwners } from './stack-owners';

/** The bootstrap stack `cdk bootstrap` creates (default qualifier). */
export const TOOLKIT_STACK = 'CDKToolkit';

const errorMessage = (error: unknown): string =>
  typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : String(error);

export async function describeStack(
  cfn: CloudFormationClient,
  stackName: string,
): Promise<Stack | undefined> {
  try {
    return (await cfn.send(new DescribeStacksCommand({ StackName: stackName }))).Stacks?.[0];
  } catch (error) {
    if (isMissingStack(error)) return undefined;
    throw error;
  }
}

export function bootstrapPort(cfn: CloudFormationClient, ssm: SSMClient): DoctorPorts['bootstrap'] {
  return async (parameterName) => {
    const stack = await describeStack(cfn, TOOLKIT_STACK);
    let parameterVersion: number | undefined;
    try {
      const p = await ssm.send(new GetParameterCommand({ Name: parameterName }));
      parameterVersion = Number(p.Parameter?.Value);
    } catch (error) {
      if (errorName(error) !== 'ParameterNotFound') throw error;
    }
    const output = stack?.Outputs?.find((o) => o.OutputKey === 'BootstrapVersion')?.OutputValue;
    const facts: BootstrapFacts = {
      stackStatus: stack?.StackStatus,
      stackVersion: output !== undefined ? Number(output) : undefined,
      parameterVersion: Number.isFinite(parameterVersion) ? parameterVersion : undefined,
    };
    return facts;
  };
}

export function lambdaLimitsPort(lambda: LambdaClient): DoctorPorts['lambdaLimits'] {
  return async (): Promise<LambdaFacts> => {
    const limit = (await lambda.send(new GetAccountSettingsCommand({}))).AccountLimit;
    if (limit?.ConcurrentExecutions === undefined || limit.UnreservedConcurrentExecutions === undefined) {
      throw new CliError('Lambda GetAccountSettings returned no concurrency limits');
    }
    return {
      concurrentExecutions: limit.ConcurrentExecutions,
      unreservedConcurrentExecutions: limit.UnreservedConcurrentExecutions,
    };
  };
}

/** Errors DescribeInstanceTypeLimits gives for a type or engine version it does not offer. */
const NOT_OFFERED = new Set(['InvalidTypeException', 'ResourceNotFoundException', 'ValidationException']);

export function instanceFitPort(opensearch: OpenSearchClient): DoctorPorts['instanceFit'] {
  return async (role, instanceType, engineVersion, volumeType) => {
    let limits;
    try {
      limits = (
        await opensearch.send(
          new DescribeInstanceTypeLimitsCommand({
            // The SDK's union lists the types it knew when built; the service is the judge of newer or wrong ones.
            InstanceType: instanceType as OpenSearchPartitionInstanceType,
            EngineVersion: engineVersion,
          }),
        )
      ).LimitsByRole?.[role];
    } catch (error) {
      if (!NOT_OFFERED.has(errorName(error))) throw error;
      return { role, instanceType, unavailable: `${errorName(error)}: ${errorMessage(error)}` };
    }
    if (limits === undefined) return { role, instanceType, unavailable: `no limits for ${role} nodes` };
    const counts = limits.InstanceLimits?.InstanceCountLimits;
    const ebs =
      limits.StorageTypes?.find((t) => t.StorageTypeName === 'ebs' && t.StorageSubTypeName === volumeType) ??
      limits.StorageTypes?.find((t) => t.StorageTypeName === 'ebs');
    const limit = (name: string): number | undefined => {
      const value = ebs?.StorageTypeLimits?.find((l) => l.LimitName === name)?.LimitValues?.[0];
      return value === undefined || value === '' ? undefined : Number(value);
    };
    const fit: InstanceFit = {
      role,
      instanceType,
      ...(counts?.MinimumInstanceCount !== undefined ? { minimumCount: counts.MinimumInstanceCount } : {}),
      ...(counts?.MaximumInstanceCount !== undefined ? { maximumCount: counts.MaximumInstanceCount } : {}),
      ...(limit('MinimumVolumeSize') !== undefined ? { minimumVolumeGb: limit('MinimumVolumeSize') } : {}),
      ...(limit('MaximumVolumeSize') !== undefined ? { maximumVolumeGb: limit('MaximumVolumeSize') } : {}),
    };
    return fit;
  };
}

/** Names of the account-level subscription filter policies (one port: moto lacks the API). */
export function accountPolicyNamesPort(logs: CloudWatchLogsClient): () => Promise<readonly string[]> {
  return async () => {
    const out = await logs.send(
      new DescribeAccountPoliciesCommand({ policyType: 'SUBSCRIPTION_FILTER_POLICY' }),
    );
    return (out.accountPolicies ?? []).map((p) => p.policyName ?? '');
  };
}

export interface ExistingPortClients {
  readonly logs: CloudWatchLogsClient;
  readonly opensearch: OpenSearchClient;
  readonly cloudformation: CloudFormationClient;
  readonly accountPolicyNames: () => Promise<readonly string[]>;
}

export function existingPort(clients: ExistingPortClients): DoctorPorts['existing'] {
  const { logs, opensearch, cloudformation } = clients;
  let resourcePolicyNames: Promise<Set<string>> | undefined;
  let accountPolicyNames: Promise<readonly string[]> | undefined;
  /**
   * The names of existing resources that stand in the way of `r`: its own name when taken, and for the
   * account-level subscription policy every such policy, whatever its name, since a log group takes at most one
   * account-level subscription filter (PutAccountPolicy in the CloudWatch Logs API reference).
   */
  const existing = async (r: NamedResource): Promise<readonly string[]> => {
    const own = (taken: boolean): readonly string[] => (taken ? [r.name] : []);
    switch (r.kind) {
      case 'opensearch-domain':
        try {
          await opensearch.send(new DescribeDomainCommand({ DomainName: r.name }));
          return own(true);
        } catch (error) {
          if (errorName(error) === 'ResourceNotFoundException') return own(false);
          throw error;
        }
      case 'log-group': {
        const out = await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: r.name }));
        return own((out.logGroups ?? []).some((g) => g.logGroupName === r.name));
      }
      case 'logs-resource-policy':
        resourcePolicyNames ??= logs
          .send(new DescribeResourcePoliciesCommand({ limit: 50 }))
          .then((out) => new Set((out.resourcePolicies ?? []).map((p) => p.policyName ?? '')));
        return own((await resourcePolicyNames).has(r.name));
      case 'logs-account-policy':
        accountPolicyNames ??= clients.accountPolicyNames();
        return accountPolicyNames;
    }
  };
  return async (names, stackPrefix) => {
    const found: NamedResource[] = [];
    for (const r of names) {
      for (const name of await existing(r)) found.push({ ...r, name });
    }
    if (found.length === 0) return [];
    const byPhysicalId = await stackOwners(cloudformation, stackPrefix);
    return found.map((r): ExistingName => ({ ...r, ownerStack: ownerIn(byPhysicalId, r.name) }));
  };
}

/** `read(stackName, stack)` for each of `stackNames` that exists, in order. */
async function mapExistingStacks<T>(
  cfn: CloudFormationClient,
  stackNames: readonly string[],
  read: (stackName: string, stack: Stack) => Promise<T> | T,
): Promise<T[]> {
  const found: T[] = [];
  for (const stackName of stackNames) {
    const stack = await describeStack(cfn, stackName);
    if (stack !== undefined) found.push(await read(stackName, stack));
  }
  return found;
}

export function stacksPort(cfn: CloudFormationClient): DoctorPorts['stacks'] {
  return (stackNames) =>
    mapExistingStacks(cfn, stackNames, (stackName, stack): DeployedStack => {
      const outputs = stack.Outputs ?? [];
      return {
        stackName,
        status: stack.StackStatus ?? 'UNKNOWN',
        exports: Object.fromEntries(
          outputs.flatMap((o) => (o.ExportName !== undefined ? [[o.ExportName, o.OutputValue ?? '']] : [])),
        ),
        outputs: Object.fromEntries(outputs.map((o) => [o.OutputKey ?? '', o.OutputValue ?? ''])),
      };
    });
}

export function deployedTemplatesPort(cfn: CloudFormationClient): DoctorPorts['deployedTemplates'] {
  return (stackNames) =>
    mapExistingStacks(cfn, stackNames, async (stackName, stack): Promise<DeployedTemplate> => {
      // Original: the template as CDK submitted it (Processed would have expanded transforms; CDK uses none).
      const out = await cfn.send(new GetTemplateCommand({ StackName: stackName, TemplateStage: 'Original' }));
      let json: unknown;
      try {
        json = JSON.parse(out.TemplateBody ?? '');
      } catch {
        throw new CliError(
          `the deployed template of ${stackName} is not JSON (a YAML template was not deployed by CDK)`,
        );
      }
      const template = asTemplate(json, `the deployed template of ${stackName}`);
      return { stackName, status: stack.StackStatus ?? 'UNKNOWN', template };
    });
}

export function subscriptionsPort(logs: CloudWatchLogsClient): DoctorPorts['subscriptionDestinations'] {
  return async (logGroupName) => {
    try {
      const out = await logs.send(new DescribeSubscriptionFiltersCommand({ logGroupName }));
      return (out.subscriptionFilters ?? []).map((f) => f.destinationArn ?? '');
    } catch (error) {
      if (errorName(error) === 'ResourceNotFoundException') return undefined;
      throw error;
    }
  };
}

/** The domain behind `dashboardsUrl` through the same signed HTTP client the provisioner uses, as the caller. */
function signedClient(
  dashboardsUrl: string,
  region: string,
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
): OpenSearchHttpClient {
  const auth = { kind: 'sigv4', region, credentials } as const;
  return createHttpClient({ baseUrl: new URL(dashboardsUrl).origin, auth, maxAttempts: 2 });
}

/** The caller's mapping on the domain. */
export function authInfoPort(
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
): DoctorPorts['authInfo'] {
  return async (dashboardsUrl, region): Promise<AuthInfo> => {
    const base = new URL(dashboardsUrl).origin;
    const client = signedClient(dashboardsUrl, region, credentials);
    const response = await client.request({ method: 'GET', path: '/_plugins/_security/authinfo' });
    if (response.status === 403 || response.status === 401) {
      throw new CliError(
        `${base} refused the signed request (HTTP ${response.status}): the domain's access policy or your identity ` +
          'policy does not allow es:ESHttpGet',
      );
    }
    const info = response.status === 200 ? parseAuthInfo(response.body) : undefined;
    if (info === undefined) {
      throw new CliError(
        `${base}/_plugins/_security/authinfo answered HTTP ${response.status}: ${response.text.slice(0, 200)}`,
      );
    }
    return info;
  };
}

/** kfek's objects and indices in the domain behind `dashboardsUrl`, read signed as the caller. */
export function domainStatePort(
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
): DoctorPorts['domainState'] {
  return async (dashboardsUrl, region, spec, previous) =>
    readDomainFor(signedClient(dashboardsUrl, region, credentials), spec, previous);
}

/** The clients the account ports use. */
export interface DoctorClients {
  readonly cloudformation: CloudFormationClient;
  readonly ssm: SSMClient;
  readonly lambda: LambdaClient;
  readonly opensearch: OpenSearchClient;
  readonly logs: CloudWatchLogsClient;
  /** Client for DescribeInstanceTypeLimits. @default - `opensearch` */
  readonly instanceLimits?: OpenSearchClient;
  /** Client for DescribeAccountPolicies. @default - `logs` */
  readonly accountPolicies?: CloudWatchLogsClient;
  /** Client for GetMetricStatistics. @default - one made from the SDK's default configuration */
  readonly cloudwatch?: CloudWatchClient;
}

/** Every port that asks the account something (all but region, caller and plan). */
export type AccountPorts = Omit<DoctorPorts, 'region' | 'callerArn' | 'plan'>;

export function accountPorts(
  clients: DoctorClients,
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
): AccountPorts {
  return {
    bootstrap: bootstrapPort(clients.cloudformation, clients.ssm),
    lambdaLimits: lambdaLimitsPort(clients.lambda),
    instanceFit: instanceFitPort(clients.instanceLimits ?? clients.opensearch),
    existing: existingPort({
      logs: clients.logs,
      opensearch: clients.opensearch,
      cloudformation: clients.cloudformation,
      accountPolicyNames: accountPolicyNamesPort(clients.accountPolicies ?? clients.logs),
    }),
    stacks: stacksPort(clients.cloudformation),
    deployedTemplates: deployedTemplatesPort(clients.cloudformation),
    subscriptionDestinations: subscriptionsPort(clients.logs),
    authInfo: authInfoPort(credentials),
    domainState: domainStatePort(credentials),
    iteratorAge: iteratorAgePort(clients.cloudwatch ?? new CloudWatchClient({})),
  };
}
