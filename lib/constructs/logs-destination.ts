import { ArnFormat, Stack, Token } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** CloudWatch Logs caps a destination access policy at 5120 bytes (PutDestinationPolicy `accessPolicy`). */
const MAX_POLICY_BYTES = 5120;

export interface LogsDestinationProps {
  readonly destinationName: string;
  /** The Kinesis stream the destination writes to (same account; may be in another region). */
  readonly targetArn: string;
  /** The role CloudWatch Logs assumes to write `targetArn` (see `LogsDestinationRole`). */
  readonly roleArn: string;
  /** Accounts that may subscribe log groups (or set an account policy) to this destination. */
  readonly sourceAccounts: readonly string[];
  /**
   * Every account of this AWS Organization may subscribe (`aws:PrincipalOrgID`); its accounts then pass a role
   * of their own in the subscription (see `DestinationSubscriptions`).
   * @default - only `sourceAccounts`
   */
  readonly organizationId?: string;
}

/**
 * A CloudWatch Logs destination (`AWS::Logs::Destination`) with its access policy, in the region of the log
 * groups that subscribe to it. The destination must be in the same region as the source log groups; its target
 * may be a Kinesis stream in another region of the same account.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CrossAccountSubscriptions-Kinesis.html
 */
export class LogsDestination extends Construct {
  readonly destination: logs.CfnDestination;
  /** The ARN source accounts subscribe to. */
  readonly destinationArn: string;

  constructor(scope: Construct, id: string, props: LogsDestinationProps) {
    super(scope, id);
    if (props.sourceAccounts.length === 0 && props.organizationId === undefined) {
      throw new Error(
        `LogsDestination ${this.node.path}: neither sourceAccounts nor organizationId is set; the destination ` +
          'would admit nobody. Pass the source accounts or the organization id.',
      );
    }
    const stack = Stack.of(this);
    // Built, not read from the resource: the policy is a property of the same resource.
    this.destinationArn = stack.formatArn({
      service: 'logs',
      resource: 'destination',
      resourceName: props.destinationName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    // PutAccountPolicy too: a source account may subscribe every log group with an account-level policy.
    // https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CreateDestination-Account.html
    const actions = ['logs:PutSubscriptionFilter', 'logs:PutAccountPolicy'];
    const statements: Record<string, unknown>[] = [];
    if (props.sourceAccounts.length > 0) {
      statements.push({
        Sid: 'SourceAccounts',
        Effect: 'Allow',
        Principal: { AWS: [...props.sourceAccounts] },
        Action: actions,
        Resource: this.destinationArn,
      });
    }
    if (props.organizationId !== undefined) {
      statements.push({
        Sid: 'SourceOrganization',
        Effect: 'Allow',
        Principal: '*',
        Action: actions,
        Resource: this.destinationArn,
        Condition: { StringEquals: { 'aws:PrincipalOrgID': [props.organizationId] } },
      });
    }
    const policy = stack.toJsonString({ Version: '2012-10-17', Statement: statements });
    if (!Token.isUnresolved(props.destinationName)) {
      // Tokens (partition, account) resolve to short strings; the account list is what can grow past the limit.
      const bytes = Buffer.byteLength(JSON.stringify(stack.resolve(policy)), 'utf8');
      if (bytes > MAX_POLICY_BYTES) {
        throw new Error(
          `LogsDestination ${this.node.path}: the access policy would be about ${bytes} bytes; CloudWatch Logs ` +
            `accepts at most ${MAX_POLICY_BYTES}. Admit the accounts through sources.organizationId instead of ` +
            'listing them all.',
        );
      }
    }
    this.destination = new logs.CfnDestination(this, 'Destination', {
      destinationName: props.destinationName,
      targetArn: props.targetArn,
      roleArn: props.roleArn,
      destinationPolicy: policy,
    });
  }
}
