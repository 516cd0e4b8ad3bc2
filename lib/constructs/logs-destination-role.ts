import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import { Construct } from 'constructs';
import { grantPutRecords } from './stream-write';

export interface LogsDestinationRoleProps {
  /** The raw stream every destination targets (same account; any region). */
  readonly stream: kinesis.IStream;
  /**
   * A fixed role name: destinations in other regions (other stacks) name the role by an ARN built from it.
   */
  readonly roleName: string;
  /** Source accounts CloudWatch Logs delivers for. */
  readonly sourceAccounts: readonly string[];
  /**
   * When set, every account of this organization may deliver: the trust cannot list them, so it admits CloudWatch
   * Logs of any account in the source regions and leaves the gate to the destination policy (`aws:PrincipalOrgID`).
   * @default - only `sourceAccounts`
   */
  readonly organizationId?: string;
  /** Regions with destinations (the `aws:SourceArn` of a delivery names the source region). */
  readonly regions: readonly string[];
}

/**
 * The role CloudWatch Logs assumes to write what a cross-account destination receives into the raw stream.
 *
 * Trust follows AWS's "Create a destination" guide: `logs.amazonaws.com` with `aws:SourceArn` in each source
 * account and region, plus the central account's own (CloudWatch Logs test-writes to the stream on the recipient's
 * behalf when the destination is created).
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CreateDestination.html
 * One role serves every region (IAM is global); it may only PutRecord(s) on the raw stream and generate data keys
 * with the stream's key.
 */
export class LogsDestinationRole extends Construct {
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: LogsDestinationRoleProps) {
    super(scope, id);
    if (props.regions.length === 0) {
      throw new Error(
        `LogsDestinationRole ${this.node.path}: regions is empty; pass the regions with destinations.`,
      );
    }
    if (props.sourceAccounts.length === 0 && props.organizationId === undefined) {
      throw new Error(
        `LogsDestinationRole ${this.node.path}: neither sourceAccounts nor organizationId is set; nothing could ` +
          'deliver through this role. Pass the source accounts or the organization id.',
      );
    }
    const stack = Stack.of(this);
    const accounts =
      props.organizationId === undefined ? [...props.sourceAccounts, stack.account] : ['*', stack.account];
    const sourceArns = props.regions.flatMap((region) =>
      accounts.map((account) => `arn:${stack.partition}:logs:${region}:${account}:*`),
    );
    this.role = new iam.Role(this, 'Role', {
      roleName: props.roleName,
      description:
        'CloudWatch Logs writes what the kfek cross-account destinations receive to the raw stream',
      assumedBy: new iam.ServicePrincipal('logs.amazonaws.com', {
        conditions: { StringLike: { 'aws:SourceArn': [...new Set(sourceArns)] } },
      }),
    });
    grantPutRecords(props.stream, this.role);
  }
}
