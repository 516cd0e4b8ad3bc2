/**
 * The physical names a synthesized kfek app claims in an AWS account, read generically from its templates, so a
 * test can prove that several profiles deploy side by side in one account and region.
 *
 * {@link NAME_PROPERTIES} is the table "resource type -> properties that hold a user-visible, fixed name". Every
 * resource type a template contains must be listed (with `[]` when CloudFormation generates the name or the name
 * is scoped to a parent resource), so a new resource type cannot slip past the cross-profile test unreviewed.
 */
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';

/** Where a name must be unique. */
export type NameScope = 'account-region' | 'account' | 'global';

export interface NameProperty {
  /** Top-level property of the resource holding the name. */
  readonly property: string;
  readonly scope: NameScope;
}

const REGIONAL = (property: string): NameProperty => ({ property, scope: 'account-region' });

/**
 * Resource type -> name properties. `[]` says "no fixed name to claim": CloudFormation generates one from the stack
 * name and logical id (unique per stack), or the name lives inside a parent resource (the comment says which).
 */
export const NAME_PROPERTIES: Readonly<Record<string, readonly NameProperty[]>> = {
  'AWS::CloudWatch::Alarm': [REGIONAL('AlarmName')],
  'AWS::CloudWatch::Dashboard': [REGIONAL('DashboardName')],
  // An inline policy's name is unique only within the role it is attached to.
  // The reconcile function's schedule (kfek gives it no Name: CloudFormation generates one).
  'AWS::Events::Rule': [REGIONAL('Name')],
  'AWS::IAM::Policy': [],
  'AWS::IAM::Role': [{ property: 'RoleName', scope: 'account' }],
  'AWS::KMS::Key': [],
  'AWS::KMS::Alias': [REGIONAL('AliasName')],
  'AWS::Kinesis::Stream': [REGIONAL('Name')],
  'AWS::KinesisFirehose::DeliveryStream': [REGIONAL('DeliveryStreamName')],
  // FunctionName here refers to the function it maps (not a claim); a mapping has no name of its own.
  'AWS::Lambda::EventSourceMapping': [],
  'AWS::Lambda::Function': [REGIONAL('FunctionName')],
  'AWS::Lambda::Permission': [],
  'AWS::Logs::AccountPolicy': [REGIONAL('PolicyName')],
  'AWS::Logs::Destination': [REGIONAL('DestinationName')],
  'AWS::Logs::LogGroup': [REGIONAL('LogGroupName')],
  // A log stream's name is unique within its log group (LogGroupName is a reference, not a claim).
  'AWS::Logs::LogStream': [],
  // Not enforced unique by CloudWatch Logs, but `kfek query --name` and the console find queries by name.
  'AWS::Logs::QueryDefinition': [REGIONAL('Name')],
  'AWS::Logs::ResourcePolicy': [REGIONAL('PolicyName')],
  // A filter's name is unique within its log group.
  'AWS::Logs::SubscriptionFilter': [],
  'AWS::OpenSearchService::Domain': [REGIONAL('DomainName')],
  // Serverless (issue 42): names are unique per account and region (security policies per type; kfek's differ by
  // suffix anyway).
  'AWS::OpenSearchServerless::AccessPolicy': [REGIONAL('Name')],
  'AWS::OpenSearchServerless::Collection': [REGIONAL('Name')],
  'AWS::OpenSearchServerless::CollectionGroup': [REGIONAL('Name')],
  'AWS::OpenSearchServerless::SecurityPolicy': [REGIONAL('Name')],
  'AWS::Pipes::Pipe': [REGIONAL('Name')],
  'AWS::S3::Bucket': [{ property: 'BucketName', scope: 'global' }],
  'AWS::S3::BucketPolicy': [],
  'AWS::SNS::Subscription': [],
  'AWS::SNS::Topic': [REGIONAL('TopicName')],
  'AWS::SNS::TopicPolicy': [],
  'AWS::SQS::Queue': [REGIONAL('QueueName')],
  'AWS::SQS::QueuePolicy': [],
  // kfek's own custom resource: it writes OpenSearch objects inside the profile's own domain.
  'Custom::KfekOpenSearchProvisioning': [],
};

/**
 * Resource kinds an account and region can hold only one of, whatever their names: an account has at most one
 * account-level subscription filter policy per Region (CloudWatch Logs, PutAccountPolicy:
 * https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_PutAccountPolicy.html).
 */
const SINGLETONS: readonly {
  readonly type: string;
  readonly match: (properties: Record<string, unknown>) => boolean;
  readonly what: string;
}[] = [
  {
    type: 'AWS::Logs::AccountPolicy',
    match: (p) => p.PolicyType === 'SUBSCRIPTION_FILTER_POLICY',
    what: 'account-level subscription filter policy (one per account and region)',
  },
];

/** One physical name a deployment claims. */
export interface NameClaim {
  /** `<scope> <type>.<property> = <name>`: equal keys clash. */
  readonly key: string;
  /** Who claims it: `<profile> <stack>/<logicalId>`. */
  readonly owner: string;
}

interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

interface Template {
  readonly Resources?: Record<string, TemplateResource>;
  readonly Outputs?: Record<string, { readonly Export?: { readonly Name?: unknown } }>;
}

/**
 * Renders a name property: literals stay; the pseudo parameters of the shared account and region become
 * placeholders (the same for every profile, which is the point); `AWS::StackName` becomes the stack's name; any other
 * intrinsic (a reference to a generated name) becomes a token unique to this stack, so it can never clash.
 */
function render(value: unknown, stackName: string): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string') {
      if (v.Ref === 'AWS::StackName') return stackName;
      if (v.Ref.startsWith('AWS::')) return `{${v.Ref}}`;
    }
    const join = v['Fn::Join'];
    if (Array.isArray(join) && typeof join[0] === 'string' && Array.isArray(join[1])) {
      return (join[1] as unknown[]).map((part) => render(part, stackName)).join(join[0]);
    }
  }
  return `{unique to ${stackName}: ${JSON.stringify(value)}}`;
}

/** Resource types of the assembly's templates that {@link NAME_PROPERTIES} does not list. */
export function unlistedResourceTypes(assembly: CloudAssembly): string[] {
  const types = new Set<string>();
  for (const stack of assembly.stacks) {
    for (const resource of Object.values((stack.template as Template).Resources ?? {})) {
      if (!(resource.Type in NAME_PROPERTIES)) types.add(resource.Type);
    }
  }
  return [...types].sort();
}

/** Every physical name one deployment (one synthesized profile) claims, stack names and exports included. */
export function nameClaims(assembly: CloudAssembly, profile: string): NameClaim[] {
  const claims: NameClaim[] = [];
  // The deployment's own region is the shared one (the first stack's, Search): a stack a cross-account profile pins
  // to another region (a destination, a source stack) claims its regional names there, not in the shared region.
  const home = assembly.stacks[0]?.environment.region;
  for (const stack of assembly.stacks) {
    const elsewhere = stack.environment.region !== home ? ` in ${stack.environment.region}` : '';
    const regional = (scope: NameScope): string =>
      scope === 'account-region' ? `${scope}${elsewhere}` : scope;
    const owner = (id: string): string => `${profile} ${stack.stackName}/${id}`;
    claims.push({
      key: `${regional('account-region')} AWS::CloudFormation::Stack = ${stack.stackName}`,
      owner: owner(''),
    });
    const template = stack.template as Template;
    for (const [id, output] of Object.entries(template.Outputs ?? {})) {
      if (output.Export?.Name !== undefined) {
        claims.push({
          key: `${regional('account-region')} CloudFormation export = ${render(output.Export.Name, stack.stackName)}`,
          owner: owner(`Outputs.${id}`),
        });
      }
    }
    for (const [id, resource] of Object.entries(template.Resources ?? {})) {
      const properties = resource.Properties ?? {};
      for (const { property, scope } of NAME_PROPERTIES[resource.Type] ?? []) {
        if (properties[property] !== undefined) {
          claims.push({
            key: `${regional(scope)} ${resource.Type}.${property} = ${render(properties[property], stack.stackName)}`,
            owner: owner(id),
          });
        }
      }
      for (const singleton of SINGLETONS) {
        if (resource.Type === singleton.type && singleton.match(properties)) {
          claims.push({ key: `${regional('account-region')} ${singleton.what}`, owner: owner(id) });
        }
      }
    }
  }
  return claims;
}

/** Claims made by more than one owner, as readable lines (empty: no clash). */
export function clashes(claims: readonly NameClaim[]): string[] {
  const byKey = new Map<string, string[]>();
  for (const claim of claims) byKey.set(claim.key, [...(byKey.get(claim.key) ?? []), claim.owner]);
  return [...byKey.entries()]
    .filter(([, owners]) => owners.length > 1)
    .map(([key, owners]) => `${key}: claimed by ${owners.join(' and ')}`);
}
