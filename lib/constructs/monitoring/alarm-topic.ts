import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * The one SNS topic every alarm and OK notification goes to, encrypted with a customer managed key CloudWatch may
 * use, with the topic policy that lets this account's alarms publish, and the optional e-mail subscription.
 */
export function createAlarmTopic(scope: Construct, namePrefix: string, email: string | undefined): sns.Topic {
  // CloudWatch cannot publish to a topic encrypted with the AWS managed key (aws/sns): its key policy cannot
  // grant cloudwatch.amazonaws.com. A customer managed key with that grant is required
  // (https://repost.aws/knowledge-center/cloudwatch-receive-sns-for-alarm-trigger).
  const key = new kms.Key(scope, 'AlarmTopicKey', {
    description: `${namePrefix} alarm topic encryption`,
    enableKeyRotation: true,
    // SNS keeps no messages at rest beyond delivery, so nothing stays encrypted under this key after the stack
    // is gone; retaining it would only cost $1 a month.
    removalPolicy: RemovalPolicy.DESTROY,
    pendingWindow: Duration.days(7),
  });
  key.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
  const topic = new sns.Topic(scope, 'AlarmTopic', {
    displayName: `${namePrefix} pipeline alarms`,
    masterKey: key,
    enforceSSL: true,
  });
  // A topic policy replaces SNS's default one, and enforceSSL above creates one holding only the TLS deny: without
  // this statement CloudWatch may not publish, and no alarm ever notifies anyone. Scoped to this account's alarms
  // (confused deputy: aws:SourceAccount and aws:SourceArn are set by CloudWatch on alarm actions).
  // https://docs.aws.amazon.com/sns/latest/dg/sns-access-policy-use-cases.html#source-account-versus-source-owner
  const stack = Stack.of(scope);
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToPublish',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: {
          'aws:SourceArn': stack.formatArn({
            service: 'cloudwatch',
            resource: 'alarm',
            resourceName: '*',
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        },
      },
    }),
  );
  if (email !== undefined) {
    // A redrive policy keeps the notifications SNS could not deliver to the address (a full mailbox, a rejected
    // or unconfirmed address after SNS's retries) instead of dropping them: an operator can read what was missed.
    // https://docs.aws.amazon.com/sns/latest/dg/sns-dead-letter-queues.html
    const undelivered = new sqs.Queue(scope, 'AlarmEmailDeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    for (const id of ['AwsSolutions-SQS3', 'Serverless-SQSRedrivePolicy']) {
      Validations.of(undelivered).acknowledge({
        id,
        reason: 'This queue is itself the dead-letter queue of the alarm e-mail subscription.',
      });
    }
    topic.addSubscription(new subscriptions.EmailSubscription(email, { deadLetterQueue: undelivered }));
  }
  return topic;
}
