/**
 * What the stacks of a profile will deploy, read from their synthesized templates and manifest properties: the stack
 * names, the bootstrap version they require, the OpenSearch domain's sizing, the Kinesis consumers' concurrency, the
 * physical names the stacks claim and the subscription filters. Pure: `kfek doctor` reads the cloud assembly from disk
 * (cli/doctor/plan.ts) and checks the account against this; the collection of a serverless profile is
 * core/opensearch/serverless-plan.ts's.
 */
import { type PlannedStack, plannedStacks, type StackArtifact } from './deploy-order';
import type { CfnResource, CfnTemplate } from './types';
import { isObject } from '../json';

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

export interface StacksPlan {
  readonly profile: string;
  /** CloudFormation stack names by construct id (`Search`, `Pipeline`, `Sources`, `Monitoring`). */
  readonly stackNames: Readonly<Record<string, string>>;
  /** The highest `requiresBootstrapStackVersion` of the stacks. */
  readonly requiredBootstrapVersion: number | undefined;
  /** SSM parameter holding the bootstrap version, e.g. `/cdk-bootstrap/hnb659fds/version`. */
  readonly bootstrapParameter: string | undefined;
  readonly domain: DomainPlan | undefined;
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

/** One stack artifact of the manifest with its template. */
export interface AssemblyStack extends StackArtifact {
  /** The artifact's `properties` in manifest.json. */
  readonly properties: JsonObject;
}

/** The plan of already parsed stacks. */
export function planOf(profile: string, stacks: readonly AssemblyStack[]): StacksPlan {
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
