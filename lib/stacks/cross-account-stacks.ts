/**
 * The stacks of cross-account delivery (docs/multi-account.md): one role stack and one destination stack per
 * source region in the central account, and one source stack per region for the source accounts. Each is small;
 * they share one file because they only make sense together.
 */
import { DefaultStackSynthesizer, Stack, type StackProps } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { RemoteSourcesConfig } from '../../core/config';
import { DestinationSubscriptions } from '../constructs/destination-subscriptions';
import { LogsDestination, type LogsDestinationProps } from '../constructs/logs-destination';
import { LogsDestinationRole, type LogsDestinationRoleProps } from '../constructs/logs-destination-role';

/** The stack's environment and the role's props (see `LogsDestinationRole`). */
export interface DestinationRoleStackProps extends StackProps, LogsDestinationRoleProps {}

/** Central account, central region: the role every destination passes to CloudWatch Logs. */
export class DestinationRoleStack extends Stack {
  readonly role: iam.IRole;

  constructor(scope: Construct, id: string, props: DestinationRoleStackProps) {
    super(scope, id, props);
    this.role = new LogsDestinationRole(this, 'LogsDestinationRole', props).role;
  }
}

/**
 * The stack's environment and the destination's props (see `LogsDestination`). `targetArn` and `roleArn` are built
 * from fixed names, not cross-region references (see lib/cross-account.ts).
 */
export interface DestinationStackProps extends StackProps, LogsDestinationProps {}

/** Central account, one source region: the destination the source accounts of that region subscribe to. */
export class DestinationStack extends Stack {
  readonly destination: LogsDestination;

  constructor(scope: Construct, id: string, props: DestinationStackProps) {
    super(scope, id, props);
    this.destination = new LogsDestination(this, 'Destination', props);
  }
}

export interface SourceAccountStackProps extends Omit<StackProps, 'synthesizer'> {
  /** The central account's destination in this stack's region. */
  readonly destinationArn: string;
  readonly filterName: string;
  readonly remote: RemoteSourcesConfig;
}

/**
 * One source account, one region: subscriptions to the central destination. Environment-agnostic in the account
 * (the same template serves every source account), so it deploys with `cdk deploy` under each account's credentials
 * or as a CloudFormation StackSet. It has no assets and no bootstrap-version rule: a StackSet instance needs nothing
 * of CDK's bootstrap in the target account.
 */
export class SourceAccountStack extends Stack {
  readonly subscriptions: DestinationSubscriptions;

  constructor(scope: Construct, id: string, props: SourceAccountStackProps) {
    super(scope, id, {
      ...props,
      synthesizer: new DefaultStackSynthesizer({ generateBootstrapVersionRule: false }),
    });
    const remote = props.remote;
    this.subscriptions = new DestinationSubscriptions(this, 'Subscriptions', {
      destinationArn: props.destinationArn,
      filterName: props.filterName,
      logGroupNames: remote.logGroups,
      filterPattern: remote.filterPattern,
      accountPolicy: remote.accountPolicy.enabled
        ? {
            filterPattern: remote.accountPolicy.filterPattern,
            excludeLogGroupNames: remote.accountPolicy.excludeLogGroups,
          }
        : undefined,
    });
  }
}
