import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface LogSubscriptionProps {
  /** The log group to subscribe (created by kfek or imported by name). */
  readonly logGroup: logs.ILogGroup;
  /** The destination stream. */
  readonly stream: kinesis.IStream;
  /** The role CloudWatch Logs assumes to write to `stream` (see `LogsDeliveryRole`). */
  readonly role: iam.IRole;
  /**
   * Filter pattern; the empty string forwards every event.
   * @default '' - all events
   */
  readonly filterPattern?: string;
}

/**
 * A subscription filter from one log group to the raw Kinesis stream, with a role passed in.
 *
 * The L1 is used because `logs.SubscriptionFilter` with `KinesisDestination` would create its own role per log
 * group (without the `aws:SourceArn` trust condition); CDK only accepts a role for that destination at the
 * destination level, which would still leave one role per source stack.
 */
export class LogSubscription extends Construct {
  readonly filter: logs.CfnSubscriptionFilter;

  constructor(scope: Construct, id: string, props: LogSubscriptionProps) {
    super(scope, id);
    const filterPattern = props.filterPattern ?? '';
    if (filterPattern.length > 1024) {
      throw new Error(
        `LogSubscription ${this.node.path}: filterPattern is ${filterPattern.length} characters; ` +
          'CloudWatch Logs accepts at most 1024. Shorten the pattern.',
      );
    }
    this.filter = new logs.CfnSubscriptionFilter(this, 'Filter', {
      logGroupName: props.logGroup.logGroupName,
      destinationArn: props.stream.streamArn,
      roleArn: props.role.roleArn,
      filterPattern,
      // Random spreads one busy log stream over all shards; the transform does not need per-stream order
      // within the raw stream (documents carry their own timestamps).
      distribution: 'Random',
    });
    // CloudWatch Logs test-writes to the stream when the filter is created: the role's policy must exist first.
    const policy = props.role.node.tryFindChild('DefaultPolicy');
    if (policy instanceof iam.Policy || policy instanceof iam.CfnPolicy)
      this.filter.node.addDependency(policy);
  }
}

/** A stable PascalCase construct ID for a log group name: `/kfek/app-1` -> `KfekApp1`. */
export function constructIdFor(logGroupName: string): string {
  const words = logGroupName.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  const id = words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  return `LogGroup${id === '' ? 'Unnamed' : id}`;
}
