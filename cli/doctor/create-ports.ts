/**
 * Wires the doctor's ports (aws-ports.ts) to real SDK clients, the SDK's credential chain and the `cdk synth`
 * child process: what `kfek doctor` runs with.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { OpenSearchClient } from '@aws-sdk/client-opensearch';
import { SSMClient } from '@aws-sdk/client-ssm';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { aossControlPlane } from '../../core/opensearch/serverless-control';
import { resolveAwsTarget } from '../aws-target';
import { MissingRegionError } from '../errors';
import { getCallerIdentity } from '../proxy';
import { type AccountPorts, accountPorts, type DoctorClients } from './aws-ports';
import type { DoctorPorts } from './facts';
import { type ProfilePlan, readPlan } from './plan';
import { serverlessNamesPort } from './serverless-names';
import { synthesize } from './synth';

export interface AwsPortsOptions {
  /** From --region; undefined lets the SDK's chain decide (AWS_REGION, the profile's region). */
  readonly region?: string;
  /**
   * Where the AWS calls go (cli/aws-target.ts reads it).
   * @default - AWS
   */
  readonly endpoint?: string;
  readonly profile: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Project directory holding cdk.json. */
  readonly projectDir: string;
  /** Read this assembly instead of synthesizing. @default - synthesize into a temporary directory */
  readonly cdkOut?: string;
  /** @default 300000 */
  readonly synthTimeoutInMillis?: number;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
}

/** Ports over real clients, at the endpoint given (AWS_ENDPOINT_URL, read by cli/aws-target.ts), else AWS. */
export interface AwsPorts {
  readonly ports: DoctorPorts;
  /** Closes the clients' connections. */
  readonly destroy: () => void;
}

export function createAwsPorts(options: AwsPortsOptions): AwsPorts {
  const requestHandler = new NodeHttpHandler({ connectionTimeout: 5_000, requestTimeout: 30_000 });
  let resolved: string | undefined = options.region;
  const { endpoint } = options;
  const config = () => ({
    ...(resolved !== undefined ? { region: resolved } : {}),
    ...(endpoint !== undefined ? { endpoint } : {}),
    credentials: options.credentials,
    requestHandler,
    maxAttempts: 3,
  });
  let clients: DoctorClients | undefined;
  let account: AccountPorts | undefined;
  // Built on first use, after the region port has resolved the region the clients need.
  const sdkClients = (): DoctorClients =>
    (clients ??= {
      cloudformation: new CloudFormationClient(config()),
      ssm: new SSMClient(config()),
      lambda: new LambdaClient(config()),
      opensearch: new OpenSearchClient(config()),
      logs: new CloudWatchLogsClient(config()),
      cloudwatch: new CloudWatchClient(config()),
    });
  const get = (): AccountPorts => (account ??= accountPorts(sdkClients(), options.credentials));
  const env = options.env;
  const ports: DoctorPorts = {
    region: async () => {
      if (resolved !== undefined) return resolved;
      try {
        // The SDK's own chain: AWS_REGION, then the region of the AWS profile.
        resolved = await new CloudFormationClient({}).config.region();
      } catch (error) {
        throw new MissingRegionError({ cause: error });
      }
      return resolved;
    },
    callerArn: (region) => {
      // The environment passed in decides (tests and `run` callers pass their own); the SDK would read process.env.
      const { endpoint } = resolveAwsTarget({}, env, { service: 'STS' });
      return getCallerIdentity({
        region,
        credentials: options.credentials,
        ...(endpoint !== undefined ? { endpoint } : {}),
      });
    },
    plan: (region, account) => planFor(options, region, account),
    bootstrap: (name) => get().bootstrap(name),
    lambdaLimits: () => get().lambdaLimits(),
    instanceFit: (...args) => get().instanceFit(...args),
    existing: (names, stackPrefix) => get().existing(names, stackPrefix),
    serverlessNames: (names, stackPrefix) => {
      const { cloudformation } = sdkClients();
      const aoss = aossControlPlane({
        region: resolved ?? '',
        credentials: options.credentials,
        ...(endpoint !== undefined ? { endpoint } : {}),
      });
      return serverlessNamesPort({ aoss, cloudformation })(names, stackPrefix);
    },
    stacks: (names) => get().stacks(names),
    deployedTemplates: (names) => get().deployedTemplates(names),
    subscriptionDestinations: (name) => get().subscriptionDestinations(name),
    authInfo: (url, region) => get().authInfo(url, region),
    domainState: (url, region, spec, previous) => get().domainState(url, region, spec, previous),
    iteratorAge: (stream) => get().iteratorAge(stream),
  };
  return {
    ports,
    destroy: () => {
      if (clients === undefined) return;
      const { cloudformation, ssm, lambda, opensearch, logs, cloudwatch } = clients;
      const all: readonly { destroy(): void }[] = [cloudformation, ssm, lambda, opensearch, logs];
      cloudwatch?.destroy();
      for (const client of all) client.destroy();
    },
  };
}

/** Synthesizes the profile for the account and region that will be deployed to (or reads --cdk-out) into a plan. */
async function planFor(
  options: AwsPortsOptions,
  region: string,
  account: string | undefined,
): Promise<ProfilePlan> {
  if (options.cdkOut !== undefined) return readPlan(options.cdkOut, options.profile);
  const outdir = mkdtempSync(join(tmpdir(), 'kfek-doctor-'));
  try {
    await synthesize({
      profile: options.profile,
      outdir,
      cwd: options.projectDir,
      // Synthesize for the account and region that will be deployed to, as `cdk deploy` does.
      env: {
        ...options.env,
        CDK_DEFAULT_REGION: region,
        ...(account !== undefined ? { CDK_DEFAULT_ACCOUNT: account } : {}),
      },
      ...(options.synthTimeoutInMillis !== undefined
        ? { timeoutInMillis: options.synthTimeoutInMillis }
        : {}),
    });
    return readPlan(outdir, options.profile);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
