import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import { Construct } from 'constructs';
import { grantPutRecords } from './stream-write';

export interface LogsDeliveryRoleProps {
  /** The stream subscription filters (and the account policy) deliver to. */
  readonly stream: kinesis.IStream;
}

/**
 * The role CloudWatch Logs assumes to write subscribed log events to a Kinesis stream.
 *
 * CDK's `KinesisDestination` creates a role per log group whose trust policy has no `aws:SourceArn` condition;
 * this one is shared by every subscription of the app and is confused-deputy safe: it trusts `logs.<region>`
 * only on behalf of this account and region, and may only `PutRecord(s)` on that one stream.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/SubscriptionFilters.html#DestinationKinesisExample
 */
export class LogsDeliveryRole extends Construct {
  readonly role: iam.IRole;

  constructor(scope: Construct, id: string, props: LogsDeliveryRoleProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // AWS's documented trust condition for subscription delivery roles is `aws:SourceArn` like
    // `arn:aws:logs:<region>:<account>:*`: CloudWatch Logs may send the ARN of a log group (with or without its
    // `:*` suffix) or, for an account-level subscription policy, of something that is not a log group, and the
    // CreateDestination guide uses the same account-and-region wildcard. It is still confused-deputy safe: only
    // CloudWatch Logs acting for this account in this region can assume the role.
    // https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/SubscriptionFilters.html#DestinationKinesisExample
    const logsOfThisAccount = stack.formatArn({
      service: 'logs',
      resource: '*',
      arnFormat: ArnFormat.NO_RESOURCE_NAME,
    });
    const role = new iam.Role(this, 'Role', {
      description: 'CloudWatch Logs writes subscribed log events to the kfek raw stream',
      assumedBy: new iam.ServicePrincipal('logs.amazonaws.com', {
        conditions: { StringLike: { 'aws:SourceArn': logsOfThisAccount } },
      }),
    });
    grantPutRecords(props.stream, role);
    this.role = role;
  }
}
