import { Stack, Token } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface AccountSubscriptionPolicyProps {
  /** Name of the account policy; an account has at most one SUBSCRIPTION_FILTER_POLICY. */
  readonly policyName: string;
  readonly stream: kinesis.IStream;
  /** The role CloudWatch Logs assumes to write to `stream` (see `LogsDeliveryRole`). */
  readonly role: iam.IRole;
  /**
   * Log groups that must NOT be subscribed: at least the pipeline's own (transform function, Firehose errors,
   * pipe, OpenSearch domain logs), or every record the pipeline logs about a record is fed back to it forever.
   * May contain tokens (names of log groups created by other stacks).
   */
  readonly excludeLogGroupNames: readonly string[];
  /**
   * @default '' - all events
   */
  readonly filterPattern?: string;
}

/**
 * An account-level subscription filter policy (`AWS::Logs::AccountPolicy`, `SUBSCRIPTION_FILTER_POLICY`) to the
 * raw stream, for every log group of the account (and those created later) except the excluded ones.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/SubscriptionFilters-AccountLevel.html
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/Subscriptions-recursion-prevention.html
 */
export class AccountSubscriptionPolicy extends Construct {
  readonly policy: logs.CfnAccountPolicy;

  constructor(scope: Construct, id: string, props: AccountSubscriptionPolicyProps) {
    super(scope, id);
    // Validate: an empty exclusion list means the pipeline would subscribe to its own logs.
    if (props.excludeLogGroupNames.length === 0) {
      throw new Error(
        `AccountSubscriptionPolicy ${this.node.path}: excludeLogGroupNames is empty; pass the pipeline's own log ` +
          'groups (transform function, Firehose, OpenSearch) or the pipeline feeds itself forever.',
      );
    }
    const literal = props.excludeLogGroupNames.filter((n) => !Token.isUnresolved(n));
    const duplicate = literal.find((n, i) => literal.indexOf(n) !== i);
    if (duplicate !== undefined) {
      throw new Error(
        `AccountSubscriptionPolicy ${this.node.path}: log group ${JSON.stringify(duplicate)} is excluded twice; ` +
          'list each log group once.',
      );
    }
    const stack = Stack.of(this);
    // `LogGroupName NOT IN [...]` is the only selection criterion a subscription filter policy supports.
    // The names are JSON strings; Stack.toJsonString quotes resolved names and tokens alike.
    const selectionCriteria = `LogGroupName NOT IN ${stack.toJsonString([...props.excludeLogGroupNames])}`;
    this.policy = new logs.CfnAccountPolicy(this, 'Policy', {
      policyName: props.policyName,
      policyType: 'SUBSCRIPTION_FILTER_POLICY',
      scope: 'ALL',
      selectionCriteria,
      policyDocument: stack.toJsonString({
        DestinationArn: props.stream.streamArn,
        RoleArn: props.role.roleArn,
        FilterPattern: props.filterPattern ?? '',
        Distribution: 'Random',
      }),
    });
  }
}
