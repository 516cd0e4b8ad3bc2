import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { justifyWildcardResources } from '../nag';
import { constructIdFor } from './log-subscription';

export interface DestinationSubscriptionsProps {
  /** The central account's destination in this region (`arn:aws:logs:<region>:<central>:destination:<name>`). */
  readonly destinationArn: string;
  /**
   * Name of every subscription filter and of the account policy; kfek names them `<stem>@<region>` so the
   * transform can tell the source region (core/contracts/cross-account-naming.ts).
   */
  readonly filterName: string;
  /** Existing log groups of this account to subscribe. */
  readonly logGroupNames: readonly string[];
  /** @default '' - all events */
  readonly filterPattern?: string;
  /**
   * An account-level subscription filter policy (every log group of the account and region) instead of, or
   * besides, the listed log groups, which it then excludes so no group is delivered twice.
   * @default - no account policy
   */
  readonly accountPolicy?: {
    readonly filterPattern: string;
    readonly excludeLogGroupNames: readonly string[];
  };
}

/**
 * The source-account side of cross-account delivery: subscription filters (and optionally an account policy) to the
 * central account's destination, and the role CloudWatch Logs assumes in this account to prove it may send there.
 *
 * The role is what AWS requires when the destination admits an organization (`aws:PrincipalOrgID`)
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CreateSubscriptionFilter-IAMrole.html). kfek passes it
 * with account-listed destinations too, so switching a destination to an organization later needs no change here
 * (AWS's update guide adds exactly this role to existing filters first). It may only PutLogEvents, on the subscribed
 * log groups.
 */
export class DestinationSubscriptions extends Construct {
  readonly role: iam.Role;
  readonly filters: readonly logs.CfnSubscriptionFilter[];
  readonly accountPolicy?: logs.CfnAccountPolicy;

  constructor(scope: Construct, id: string, props: DestinationSubscriptionsProps) {
    super(scope, id);
    if (props.logGroupNames.length === 0 && props.accountPolicy === undefined) {
      throw new Error(
        `DestinationSubscriptions ${this.node.path}: no log group and no account policy; this would subscribe ` +
          'nothing. Pass logGroupNames or accountPolicy.',
      );
    }
    const stack = Stack.of(this);
    this.role = this.createRole(props);
    const policy = this.role.node.findChild('DefaultPolicy');

    const filterPattern = props.filterPattern ?? '';
    this.filters = props.logGroupNames.map((name) => {
      const filter = new logs.CfnSubscriptionFilter(this, `${constructIdFor(name)}Subscription`, {
        logGroupName: name,
        filterName: props.filterName,
        destinationArn: props.destinationArn,
        roleArn: this.role.roleArn,
        filterPattern,
        distribution: 'Random',
      });
      // CloudWatch Logs checks the role when the filter is created: its policy must exist first.
      filter.node.addDependency(policy);
      return filter;
    });

    if (props.accountPolicy !== undefined) {
      const exclude = [...new Set([...props.accountPolicy.excludeLogGroupNames, ...props.logGroupNames])];
      this.accountPolicy = new logs.CfnAccountPolicy(this, 'AccountPolicy', {
        policyName: props.filterName,
        policyType: 'SUBSCRIPTION_FILTER_POLICY',
        scope: 'ALL',
        // `LogGroupName NOT IN [...]` is the only selection criterion; with nothing to exclude it is left out.
        ...(exclude.length === 0
          ? {}
          : { selectionCriteria: `LogGroupName NOT IN ${JSON.stringify(exclude)}` }),
        policyDocument: stack.toJsonString({
          DestinationArn: props.destinationArn,
          RoleArn: this.role.roleArn,
          FilterPattern: props.accountPolicy.filterPattern,
          Distribution: 'Random',
        }),
      });
      this.accountPolicy.node.addDependency(policy);
    }
  }

  /**
   * The role CloudWatch Logs assumes to send this account's events: PutLogEvents on the subscribed groups (every group
   * with an account policy), each wildcard justified for cdk-nag.
   */
  private createRole(props: DestinationSubscriptionsProps): iam.Role {
    const stack = Stack.of(this);
    const role = new iam.Role(this, 'Role', {
      description: 'CloudWatch Logs sends this account log events to the kfek cross-account destination',
      // Only CloudWatch Logs acting for this account's log groups (the guide's trust has no condition; this one is
      // confused-deputy safe and still matches every delivery of this account).
      assumedBy: new iam.ServicePrincipal('logs.amazonaws.com', {
        conditions: { StringLike: { 'aws:SourceArn': `arn:${stack.partition}:logs:*:${stack.account}:*` } },
      }),
    });
    // AWS's guide grants logs:PutLogEvents on the log group the subscription is created on (IAM has no destination
    // resource for that action); with an account policy that is every log group of the account in this region.
    const logGroupArn = (name: string): string =>
      stack.formatArn({
        service: 'logs',
        resource: 'log-group',
        resourceName: `${name}:*`,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
    const everyGroup = logGroupArn('*');
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:PutLogEvents'],
        resources: props.accountPolicy === undefined ? props.logGroupNames.map(logGroupArn) : [everyGroup],
      }),
    );
    justifyWildcardResources(
      role,
      props.accountPolicy !== undefined
        ? [
            {
              resource: everyGroup,
              reason:
                'The account-level subscription policy covers every log group of the account in this region (and ' +
                'those created later); CloudWatch Logs checks PutLogEvents on the group whose events it forwards. ' +
                'PutLogEvents only, and only CloudWatch Logs acting for this account can assume the role.',
            },
          ]
        : props.logGroupNames.map((name) => ({
            resource: logGroupArn(name),
            reason:
              `The streams of the subscribed log group ${name} (the ARN form AWS's cross-account guide uses); ` +
              'PutLogEvents only.',
          })),
    );
    return role;
  }
}
