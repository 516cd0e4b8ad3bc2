import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { SourcesConfig } from '../../core/config';
import { AccountSubscriptionPolicy } from '../constructs/account-subscription-policy';
import { constructIdFor, LogSubscription } from '../constructs/log-subscription';
import { retentionDays } from '../retention';

export interface SourcesStackProps extends StackProps {
  /** The subscription target. */
  readonly rawStream: kinesis.IStream;
  /** The role CloudWatch Logs assumes to write `rawStream` (PipelineStack.subscriptionRole). */
  readonly subscriptionRole: iam.IRole;
  readonly sources: SourcesConfig;
  /**
   * The pipeline's own log group names (transform, Firehose, pipe, OpenSearch domain logs), always excluded from
   * the account policy. May be tokens.
   * @default [] - only allowed when the account policy is disabled
   */
  readonly pipelineLogGroupNames?: readonly string[];
  /**
   * Name of the account-level subscription filter policy.
   * @default 'kfek-subscription'
   */
  readonly accountPolicyName?: string;
  /**
   * Removal policy of the log groups this stack creates.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The log sources: log groups kfek creates (STANDARD class, retention set) and existing ones by name, each with a
 * subscription filter to the raw stream, plus the optional account-level subscription filter policy.
 *
 * Stateless apart from the log groups it creates; another SourcesStack (another team's, another config) can be
 * added beside this one with only the raw stream and the role as inputs, without touching the other stacks.
 */
export class SourcesStack extends Stack {
  /** Every subscribed log group, created or imported, by configured name. */
  readonly logGroups: ReadonlyMap<string, logs.ILogGroup>;
  readonly accountPolicy?: AccountSubscriptionPolicy;

  constructor(scope: Construct, id: string, props: SourcesStackProps) {
    super(scope, id, props);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
    const groups = new Map<string, logs.ILogGroup>();

    // Validate: construct IDs derive from names, so two names must not collapse to one ID.
    const seen = new Map<string, string>();
    for (const source of props.sources.logGroups) {
      const cid = constructIdFor(source.name);
      const other = seen.get(cid);
      if (other !== undefined) {
        throw new Error(
          `SourcesStack ${this.node.path}: log groups ${JSON.stringify(other)} and ${JSON.stringify(source.name)} ` +
            `both map to construct ID ${cid}; names may differ in more than punctuation. Rename one of them.`,
        );
      }
      seen.set(cid, source.name);
    }

    props.sources.logGroups.forEach((source) => {
      // Construct IDs come from the log group name, not the list position: reordering the config must not
      // replace log groups (which would delete their logs).
      const cid = constructIdFor(source.name);
      const group = source.create
        ? new logs.LogGroup(this, cid, {
            logGroupName: source.name,
            logGroupClass: logs.LogGroupClass.STANDARD,
            retention: retentionDays(
              source.retentionDays,
              `sources.logGroups "${source.name}" retentionDays`,
            ),
            removalPolicy,
          })
        : logs.LogGroup.fromLogGroupName(this, cid, source.name);
      new LogSubscription(this, `${cid}Subscription`, {
        logGroup: group,
        stream: props.rawStream,
        role: props.subscriptionRole,
        filterPattern: source.filterPattern,
      });
      groups.set(source.name, group);
    });
    this.logGroups = groups;

    const policy = props.sources.accountPolicy;
    if (policy.enabled) {
      this.accountPolicy = new AccountSubscriptionPolicy(this, 'AccountPolicy', {
        policyName: props.accountPolicyName ?? 'kfek-subscription',
        stream: props.rawStream,
        role: props.subscriptionRole,
        filterPattern: policy.filterPattern,
        // The explicitly subscribed groups are excluded too: a log group would otherwise be delivered twice.
        excludeLogGroupNames: [
          ...(props.pipelineLogGroupNames ?? []),
          ...policy.excludeLogGroups,
          ...props.sources.logGroups.map((g) => g.name),
        ],
      });
    }
  }
}
