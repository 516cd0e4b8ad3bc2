/**
 * What a profile will deploy, read from the cloud assembly `cdk synth` wrote (manifest.json and the stack
 * templates): the stack names, the bootstrap version they require, the OpenSearch domain's sizing, the Kinesis
 * consumers' concurrency, the physical names the stacks claim and the subscription filters.
 *
 * The CLI never imports the CDK app (lib/app.ts, lib/stacks, lib/constructs), so it learns all of this from the
 * synthesized JSON, which is also exactly what CloudFormation will be asked to create.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asTemplate, type CfnResource, type CfnTemplate } from '../../core/change-plan';
import { CliError } from '../errors';
import { type PlannedStack, plannedStacks, type StackArtifact } from '../../core/change-plan/deploy-order';
import { isObject } from '../../core/json';
import { type CollectionPlan, collectionPlanOf } from '../../core/opensearch/serverless-plan';

/** The cloud assembly is missing, unreadable or not one of kfek's. */
export class AssemblyError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AssemblyError';
  }
}

/** A name a resource claims in the account and region; CloudFormation cannot create it when it exists. */
export interface NamedResource {
  readonly kind: 'opensearch-domain' | 'log-group' | 'logs-resource-policy' | 'logs-account-policy';
  readonly name: string;
  /** The stack that will create it. */
  readonly stackName: string;
}

/** An event source mapping or pipe reading a Kinesis stream: one concurrent invocation per shard and factor. */
export interface StreamConsumer {
  /** Logical id of the mapping or pipe. */
  readonly logicalId: string;
  readonly parallelizationFactor: number;
  /** Shards of the stream it reads; undefined for an on-demand stream (AWS sizes and splits it). */
  readonly shardCount: number | undefined;
}

export interface DomainPlan {
  readonly name: string;
  readonly engineVersion: string;
  readonly instanceType: string;
  readonly instanceCount: number;
  /** @default - no EBS volume */
  readonly volumeSizeGb?: number;
  /** EBS volume type (`gp3`). @default - no EBS volume */
  readonly volumeType?: string;
  /** @default - no dedicated master nodes */
  readonly masterInstanceType?: string;
  readonly masterCount: number;
}

export interface SubscriptionPlan {
  readonly logGroupName: string;
  /** The export of the raw stream's ARN the filter imports (`Fn::ImportValue`); undefined for any other form. */
  readonly destinationExport: string | undefined;
}

export interface ProfilePlan {
  readonly profile: string;
  /** CloudFormation stack names by construct id (`Search`, `Pipeline`, `Sources`, `Monitoring`). */
  readonly stackNames: Readonly<Record<string, string>>;
  /** The highest `requiresBootstrapStackVersion` of the stacks. */
  readonly requiredBootstrapVersion: number | undefined;
  /** SSM parameter holding the bootstrap version, e.g. `/cdk-bootstrap/hnb659fds/version`. */
  readonly bootstrapParameter: string | undefined;
  readonly domain: DomainPlan | undefined;
  /** A serverless profile's collection and its policies (core/opensearch/serverless-plan.ts). */
  readonly collection?: CollectionPlan;
  readonly consumers: readonly StreamConsumer[];
  /** Sum of `ReservedConcurrentExecutions` over the functions. */
  readonly reservedConcurrency: number;
  readonly namedResources: readonly NamedResource[];
  readonly subscriptions: readonly SubscriptionPlan[];
  /** Every stack with its template, in the order `cdk deploy` deploys them (dependencies first). */
  readonly stacks: readonly PlannedStack[];
}

type JsonObject = Readonly<Record<string, unknown>>;

const obj = (v: unknown): JsonObject => (isObject(v) ? v : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;

/** The template's resource `id`, own properties only (a logical id such as `constructor` is an ordinary name). */
function resourceOf(template: CfnTemplate | undefined, id: string): CfnResource | undefined {
  const resources = template?.Resources;
  return resources !== undefined && Object.hasOwn(resources, id) ? resources[id] : undefined;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new AssemblyError(
      `Cannot read ${file} (${error instanceof Error ? error.message : String(error)}): synthesize again ` +
        '(`npx cdk synth -c profile=<name>`) or drop --cdk-out.',
      { cause: error },
    );
  }
}

/** A stack template file, checked and typed once (core/change-plan's `CfnTemplate`, as the change planner reads it). */
function readTemplate(file: string): CfnTemplate {
  const json = readJson(file);
  try {
    return asTemplate(json, file);
  } catch (error) {
    throw new AssemblyError(`${error instanceof Error ? error.message : String(error)}: synthesize again`, {
      cause: error,
    });
  }
}

/** Reads the assembly in `dir` (a `cdk synth -o dir`) for `profile`. */
export function readPlan(dir: string, profile: string): ProfilePlan {
  const manifest = obj(readJson(join(dir, 'manifest.json')));
  const stacks: AssemblyStack[] = [];
  for (const [id, artifact] of Object.entries(obj(manifest.artifacts))) {
    const a = obj(artifact);
    if (a.type !== 'aws:cloudformation:stack') continue;
    const properties = obj(a.properties);
    const file = str(properties.templateFile);
    if (file === undefined) continue;
    stacks.push({
      id,
      stackName: str(properties.stackName) ?? id,
      properties,
      body: readTemplate(join(dir, file)),
      environment: str(a.environment),
      dependencies: Array.isArray(a.dependencies) ? a.dependencies.filter((d) => typeof d === 'string') : [],
    });
  }
  if (stacks.length === 0) {
    throw new AssemblyError(`${dir} holds no CloudFormation stacks: is it the output of \`cdk synth\`?`);
  }
  const collection = stacks.map((s) => collectionPlanOf(s.body.Resources ?? {})).find((c) => c !== undefined);
  return { ...planOf(profile, stacks), ...(collection === undefined ? {} : { collection }) };
}

/** One stack artifact of the manifest with its template. */
export interface AssemblyStack extends StackArtifact {
  /** The artifact's `properties` in manifest.json. */
  readonly properties: JsonObject;
}

/** The plan of already parsed stacks. */
export function planOf(profile: string, stacks: readonly AssemblyStack[]): ProfilePlan {
  const versions = stacks.map((s) => num(s.properties.requiresBootstrapStackVersion)).filter(isNumber);
  const resources = new PlanResources(stacks);
  for (const s of stacks) {
    for (const [logicalId, r] of Object.entries(s.body.Resources ?? {})) resources.add(s, logicalId, r);
  }
  return {
    profile,
    stackNames: Object.fromEntries(stacks.map((s) => [s.id, s.stackName])),
    requiredBootstrapVersion: versions.length === 0 ? undefined : Math.max(...versions),
    bootstrapParameter: stacks.map((s) => str(s.properties.bootstrapStackVersionSsmParameter)).find(isString),
    domain: resources.domain,
    consumers: resources.consumers,
    reservedConcurrency: resources.reservedConcurrency,
    namedResources: resources.namedResources,
    subscriptions: resources.subscriptions,
    stacks: plannedStacks(stacks),
  };
}

/** What the stacks' resources say, collected resource by resource. */
class PlanResources {
  domain: DomainPlan | undefined;
  readonly consumers: StreamConsumer[] = [];
  readonly namedResources: NamedResource[] = [];
  readonly subscriptions: SubscriptionPlan[] = [];
  reservedConcurrency = 0;
  /** Every stack output with an export, by export name, for the streams an `Fn::ImportValue` points at. */
  private readonly outputsByExport = new Map<string, { template: CfnTemplate; value: unknown }>();

  constructor(stacks: readonly AssemblyStack[]) {
    for (const s of stacks) {
      for (const o of Object.values(s.body.Outputs ?? {})) {
        const name = str(obj(o.Export).Name);
        if (name !== undefined) this.outputsByExport.set(name, { template: s.body, value: o.Value });
      }
    }
  }

  add(s: AssemblyStack, logicalId: string, r: CfnResource): void {
    const p = obj(r.Properties);
    const named = (kind: NamedResource['kind'], name: unknown): void => {
      if (typeof name === 'string') this.namedResources.push({ kind, name, stackName: s.stackName });
    };
    switch (r.Type) {
      case 'AWS::OpenSearchService::Domain':
        named('opensearch-domain', p.DomainName);
        this.domain = domainOf(logicalId, p);
        break;
      case 'AWS::Logs::LogGroup':
        named('log-group', p.LogGroupName);
        break;
      case 'AWS::Logs::ResourcePolicy':
        named('logs-resource-policy', p.PolicyName);
        break;
      case 'AWS::Logs::AccountPolicy':
        named('logs-account-policy', p.PolicyName);
        break;
      case 'AWS::Lambda::Function':
        this.reservedConcurrency += num(p.ReservedConcurrentExecutions) ?? 0;
        break;
      case 'AWS::Lambda::EventSourceMapping':
      case 'AWS::Pipes::Pipe':
        this.addConsumer(s, logicalId, r.Type === 'AWS::Pipes::Pipe', p);
        break;
      case 'AWS::Logs::SubscriptionFilter': {
        const ref = str(obj(p.LogGroupName).Ref);
        const logGroupName =
          str(p.LogGroupName) ??
          (ref !== undefined ? str(obj(resourceOf(s.body, ref)?.Properties).LogGroupName) : undefined);
        if (logGroupName === undefined) break;
        this.subscriptions.push({
          logGroupName,
          destinationExport: str(obj(p.DestinationArn)['Fn::ImportValue']),
        });
        break;
      }
    }
  }

  /** An event source mapping or pipe, when it reads a Kinesis stream. */
  private addConsumer(s: AssemblyStack, logicalId: string, isPipe: boolean, p: JsonObject): void {
    const stream = this.streamOf(isPipe ? p.Source : p.EventSourceArn, s.body);
    if (stream?.Type !== 'AWS::Kinesis::Stream') return;
    const factor = isPipe
      ? num(obj(obj(p.SourceParameters).KinesisStreamParameters).ParallelizationFactor)
      : num(p.ParallelizationFactor);
    const streamProperties = obj(stream.Properties);
    const shardCount =
      str(obj(streamProperties.StreamModeDetails).StreamMode) === 'ON_DEMAND'
        ? undefined
        : (num(streamProperties.ShardCount) ?? 1);
    this.consumers.push({ logicalId, parallelizationFactor: factor ?? 1, shardCount });
  }

  /** The Kinesis stream resource an `Fn::ImportValue` (or a local `Fn::GetAtt`) points at. */
  private streamOf(arn: unknown, local: CfnTemplate): CfnResource | undefined {
    const imported = str(obj(arn)['Fn::ImportValue']);
    const source =
      imported !== undefined ? this.outputsByExport.get(imported) : { template: local, value: arn };
    const getAtt = obj(source?.value)['Fn::GetAtt'];
    const id = Array.isArray(getAtt) ? str(getAtt[0]) : undefined;
    return id === undefined ? undefined : resourceOf(source?.template, id);
  }
}

/** The domain's sizing, with CloudFormation's defaults where the template leaves a property out. */
function domainOf(logicalId: string, p: JsonObject): DomainPlan {
  const c = obj(p.ClusterConfig);
  const ebs = obj(p.EBSOptions);
  return {
    name: str(p.DomainName) ?? logicalId,
    engineVersion: str(p.EngineVersion) ?? 'OpenSearch_1.0',
    instanceType: str(c.InstanceType) ?? 'r5.large.search',
    instanceCount: num(c.InstanceCount) ?? 1,
    ...(ebs.EBSEnabled === true && num(ebs.VolumeSize) !== undefined
      ? { volumeSizeGb: num(ebs.VolumeSize), volumeType: str(ebs.VolumeType) ?? 'gp2' }
      : {}),
    ...(c.DedicatedMasterEnabled === true && str(c.DedicatedMasterType) !== undefined
      ? { masterInstanceType: str(c.DedicatedMasterType) }
      : {}),
    masterCount: c.DedicatedMasterEnabled === true ? (num(c.DedicatedMasterCount) ?? 3) : 0,
  };
}

function isNumber(v: number | undefined): v is number {
  return v !== undefined;
}
function isString(v: string | undefined): v is string {
  return v !== undefined;
}
