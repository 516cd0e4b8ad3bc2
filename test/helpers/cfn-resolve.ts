/**
 * Resolves the intrinsic functions of synthesized CloudFormation templates to the concrete values CloudFormation
 * would produce in one account and region: `Ref`, `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, `Fn::Select`, `Fn::Split`,
 * `Fn::ImportValue` (through the `Export` of another template of the same app) and the pseudo parameters.
 *
 * Policy evaluation needs ARNs, not `{ "Fn::GetAtt": [...] }`: with them, an identity policy, a key policy and a
 * request can be compared the way IAM compares them. Physical names CloudFormation would generate are derived from
 * the stack name and logical id (deterministic, unique in the account); explicit names (`DomainName`,
 * `LogGroupName`, ...) are used as written. A reference this resolver does not know is an error, never a guess.
 */

/** The account and region the templates are evaluated in. */
export interface DeployTarget {
  readonly account: string;
  readonly region: string;
  /** @default 'aws' */
  readonly partition?: string;
}

/** One resource of a template, as synthesized. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Readonly<Record<string, unknown>>;
  readonly DependsOn?: unknown;
}

export interface CfnTemplate {
  readonly Resources: Readonly<Record<string, CfnResource>>;
  readonly Outputs?: Readonly<
    Record<string, { readonly Value: unknown; readonly Export?: { readonly Name: unknown } }>
  >;
}

/** One synthesized stack: its CloudFormation stack name and template. */
export interface StackTemplate {
  readonly stackName: string;
  readonly template: CfnTemplate;
}

/** A value the resolver cannot turn into a concrete one (unknown function, resource type or attribute). */
export class UnresolvableReferenceError extends Error {
  constructor(stackName: string, what: string) {
    super(`${stackName}: cannot resolve ${what}; teach test/helpers/cfn-resolve.ts this reference.`);
    this.name = 'UnresolvableReferenceError';
  }
}

interface Names {
  readonly ref: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** Resolves the templates of one app (every stack, for cross-stack imports) in one account and region. */
export class CfnResolver {
  private readonly partition: string;
  private readonly exports = new Map<string, { readonly stack: StackTemplate; readonly value: unknown }>();
  private readonly stacksByName = new Map<string, StackTemplate>();

  constructor(
    stacks: readonly StackTemplate[],
    readonly target: DeployTarget,
    /**
     * Stacks deployed elsewhere than `target` (cross-account and cross-region stacks), by stack name.
     * @default - every stack in `target`
     */
    private readonly stackTargets: ReadonlyMap<string, DeployTarget> = new Map(),
  ) {
    this.partition = target.partition ?? 'aws';
    for (const stack of stacks) {
      this.stacksByName.set(stack.stackName, stack);
      for (const output of Object.values(stack.template.Outputs ?? {})) {
        if (output.Export === undefined) continue;
        const name = this.resolveString(stack.stackName, output.Export.Name);
        this.exports.set(name, { stack, value: output.Value });
      }
    }
  }

  /** Resolves every intrinsic in `value` (deeply) as CloudFormation would in stack `stackName`. */
  resolve(stackName: string, value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.resolve(stackName, v));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1) {
      const [[key, arg]] = entries;
      if (key === 'Ref' || key.startsWith('Fn::')) return this.intrinsic(stackName, key, arg);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, this.resolve(stackName, v)]));
  }

  /** {@link resolve}, for a value that must be a string. */
  resolveString(stackName: string, value: unknown): string {
    const resolved = this.resolve(stackName, value);
    if (typeof resolved !== 'string') {
      throw new UnresolvableReferenceError(stackName, `${JSON.stringify(value)} to a string`);
    }
    return resolved;
  }

  /** `Ref` (no attribute) or `Fn::GetAtt` of a resource. */
  attribute(stackName: string, logicalId: string, attribute?: string): string {
    const names = this.names(stackName, logicalId);
    if (attribute === undefined) return names.ref;
    const value = names.attributes[attribute];
    if (value === undefined) {
      throw new UnresolvableReferenceError(stackName, `Fn::GetAtt ${logicalId}.${attribute}`);
    }
    return value;
  }

  private intrinsic(stackName: string, fn: string, arg: unknown): unknown {
    switch (fn) {
      case 'Ref':
        return this.ref(stackName, String(arg));
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(arg) ? arg.map(String) : String(arg).split(/\.(.*)/);
        return this.attribute(stackName, logicalId, attribute);
      }
      case 'Fn::Join': {
        const [separator, parts] = arg as [string, unknown[]];
        const resolved = this.resolve(stackName, parts);
        if (!Array.isArray(resolved))
          throw new UnresolvableReferenceError(stackName, `Fn::Join ${JSON.stringify(arg)}`);
        return resolved.map((p) => this.asString(stackName, p)).join(separator);
      }
      case 'Fn::Sub':
        return this.sub(stackName, arg);
      case 'Fn::Select': {
        const [index, list] = arg as [unknown, unknown];
        const resolved = this.resolve(stackName, list);
        if (!Array.isArray(resolved))
          throw new UnresolvableReferenceError(stackName, `Fn::Select ${JSON.stringify(arg)}`);
        return resolved[Number(this.resolve(stackName, index))] as unknown;
      }
      case 'Fn::Split': {
        const [separator, source] = arg as [string, unknown];
        return this.resolveString(stackName, source).split(separator);
      }
      case 'Fn::ImportValue': {
        const name = this.resolveString(stackName, arg);
        const exported = this.exports.get(name);
        if (exported === undefined)
          throw new UnresolvableReferenceError(stackName, `Fn::ImportValue ${name} (no such export)`);
        return this.resolve(exported.stack.stackName, exported.value);
      }
      default:
        throw new UnresolvableReferenceError(stackName, `${fn} ${JSON.stringify(arg)}`);
    }
  }

  private asString(stackName: string, value: unknown): string {
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return String(value);
    throw new UnresolvableReferenceError(stackName, `${JSON.stringify(value)} inside Fn::Join`);
  }

  private sub(stackName: string, arg: unknown): string {
    const [text, variables] = Array.isArray(arg)
      ? (arg as [string, Record<string, unknown>])
      : [String(arg), {} as Record<string, unknown>];
    return text.replace(/\$\{([^}!][^}]*)\}/g, (_m, name: string) => {
      if (name in variables) return this.resolveString(stackName, variables[name]);
      const [logicalId, attribute] = name.split(/\.(.*)/);
      return attribute === undefined
        ? this.ref(stackName, logicalId)
        : this.attribute(stackName, logicalId, attribute);
    });
  }

  private ref(stackName: string, name: string): string {
    switch (name) {
      case 'AWS::AccountId':
        return this.targetOf(stackName).account;
      case 'AWS::Region':
        return this.targetOf(stackName).region;
      case 'AWS::Partition':
        return this.partition;
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return stackName;
      default:
        return this.attribute(stackName, name);
    }
  }

  private names(stackName: string, logicalId: string): Names {
    const stack = this.stacksByName.get(stackName);
    const resource = stack?.template.Resources[logicalId];
    if (resource === undefined)
      throw new UnresolvableReferenceError(stackName, `resource ${logicalId} (not in the template)`);
    const { account, region } = this.targetOf(stackName);
    const p = this.partition;
    const props = resource.Properties ?? {};
    // The name CloudFormation would generate (stack name, logical id; the random suffix is left out) unless the
    // template names the resource itself.
    const named = (property: string, lower = false): string => {
      const explicit = props[property];
      if (explicit !== undefined) return this.resolveString(stackName, explicit);
      const generated = `${stackName}-${logicalId}`;
      return lower ? generated.toLowerCase() : generated;
    };
    switch (resource.Type) {
      case 'AWS::IAM::Role': {
        const name = named('RoleName');
        return {
          ref: name,
          attributes: {
            Arn: `arn:${p}:iam::${account}:role${this.iamPath(stackName, props)}${name}`,
            RoleId: `AROA${logicalId}`,
          },
        };
      }
      case 'AWS::IAM::Policy':
        return { ref: named('PolicyName'), attributes: {} };
      case 'AWS::Kinesis::Stream': {
        const name = named('Name');
        return { ref: name, attributes: { Arn: `arn:${p}:kinesis:${region}:${account}:stream/${name}` } };
      }
      case 'AWS::KMS::Key': {
        // A key id is a UUID; the logical id stands in for it (unique per template, stable across runs).
        const id = `${stackName}-${logicalId}`;
        return { ref: id, attributes: { Arn: `arn:${p}:kms:${region}:${account}:key/${id}`, KeyId: id } };
      }
      case 'AWS::S3::Bucket': {
        const name = named('BucketName', true);
        return {
          ref: name,
          attributes: {
            Arn: `arn:${p}:s3:::${name}`,
            DomainName: `${name}.s3.amazonaws.com`,
            RegionalDomainName: `${name}.s3.${region}.amazonaws.com`,
          },
        };
      }
      case 'AWS::SQS::Queue': {
        const name = named('QueueName');
        return {
          ref: `https://sqs.${region}.amazonaws.com/${account}/${name}`,
          attributes: {
            Arn: `arn:${p}:sqs:${region}:${account}:${name}`,
            QueueName: name,
            QueueUrl: `https://sqs.${region}.amazonaws.com/${account}/${name}`,
          },
        };
      }
      case 'AWS::SNS::Topic': {
        const name = named('TopicName');
        const arn = `arn:${p}:sns:${region}:${account}:${name}`;
        return { ref: arn, attributes: { TopicArn: arn, TopicName: name } };
      }
      case 'AWS::Lambda::Function': {
        const name = named('FunctionName');
        return { ref: name, attributes: { Arn: `arn:${p}:lambda:${region}:${account}:function:${name}` } };
      }
      case 'AWS::Lambda::EventSourceMapping':
        return { ref: `esm-${logicalId}`, attributes: {} };
      case 'AWS::Logs::LogGroup': {
        const name = named('LogGroupName');
        return { ref: name, attributes: { Arn: `arn:${p}:logs:${region}:${account}:log-group:${name}:*` } };
      }
      case 'AWS::Logs::LogStream':
        return { ref: named('LogStreamName'), attributes: {} };
      case 'AWS::OpenSearchService::Domain': {
        const name = named('DomainName', true);
        const endpoint = `search-${name}-abcdefghijklmnopqrstuvwxyz.${region}.es.amazonaws.com`;
        return {
          ref: name,
          attributes: {
            Arn: `arn:${p}:es:${region}:${account}:domain/${name}`,
            DomainArn: `arn:${p}:es:${region}:${account}:domain/${name}`,
            DomainEndpoint: endpoint,
            Id: `${account}/${name}`,
          },
        };
      }
      case 'AWS::OpenSearchServerless::Collection': {
        // The collection id is generated by the service; a stable stand-in derived from the name.
        const name = named('Name');
        const id = `${name.replace(/-/g, '')}id`.slice(0, 20);
        return {
          ref: id,
          attributes: {
            Id: id,
            Arn: `arn:${p}:aoss:${region}:${account}:collection/${id}`,
            CollectionEndpoint: `https://${id}.${region}.aoss.amazonaws.com`,
            DashboardEndpoint: `https://${id}.${region}.aoss.amazonaws.com/_dashboards`,
          },
        };
      }
      case 'AWS::KinesisFirehose::DeliveryStream': {
        const name = named('DeliveryStreamName');
        return {
          ref: name,
          attributes: { Arn: `arn:${p}:firehose:${region}:${account}:deliverystream/${name}` },
        };
      }
      case 'AWS::Pipes::Pipe': {
        const name = named('Name');
        return { ref: name, attributes: { Arn: `arn:${p}:pipes:${region}:${account}:pipe/${name}` } };
      }
      case 'AWS::Events::Rule': {
        const name = named('Name');
        return { ref: name, attributes: { Arn: `arn:${p}:events:${region}:${account}:rule/${name}` } };
      }
      case 'AWS::CloudWatch::Alarm': {
        const name = named('AlarmName');
        return { ref: name, attributes: { Arn: `arn:${p}:cloudwatch:${region}:${account}:alarm:${name}` } };
      }
      default:
        throw new UnresolvableReferenceError(
          stackName,
          `Ref/Fn::GetAtt of ${logicalId} (type ${resource.Type})`,
        );
    }
  }

  /** Where a stack is deployed. */
  targetOf(stackName: string): DeployTarget {
    return this.stackTargets.get(stackName) ?? this.target;
  }

  private iamPath(stackName: string, props: Readonly<Record<string, unknown>>): string {
    return props.Path === undefined ? '/' : this.resolveString(stackName, props.Path);
  }
}
