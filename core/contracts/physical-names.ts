/**
 * The physical names of a deployment's resources, fixed from the first deploy and derived from the stem
 * (`<name>-<profile>`, e.g. `kfek-sandbox`) alone. One owner for the CDK app (which gives the resources these
 * names), the CLI (`kfek doctor`, `replay`, `query` find them without asking CloudFormation) and the docs.
 *
 * Why fixed names (docs/deploy.md, "Changing a deployed profile"):
 * - a stack that needs another stack's resource builds its name or ARN from here instead of importing a
 *   CloudFormation export, so no stack pins another (CDK's "deadly embrace", aws/aws-cdk#7602);
 * - a Kinesis stream's `Name` is create-only: a name given later REPLACES the stream, so streams are named on the
 *   first deploy, whatever the profile (a profile that later adds source accounts needs the fixed name).
 *
 * A named resource can never be replaced by CloudFormation ("cannot update a stack when a custom-named resource
 * requires replacing"): the change-plan test (test/lib/transitions.test.ts) proves that no supported change does.
 */

export interface PhysicalNames {
  /** The stack name prefix and OpenSearch domain name. */
  readonly stem: string;
  /** Kinesis: what CloudWatch Logs subscriptions write. */
  readonly rawStream: string;
  /** Kinesis: the transform's documents, Firehose's source. */
  readonly eventsStream: string;
  /** Lambda: the transform (event source mapping handler or Pipes enrichment; one function for both transports). */
  readonly transformFunction: string;
  /** The transform's log group. */
  readonly transformLogGroup: string;
  /** Firehose delivery stream from the events stream to OpenSearch. */
  readonly deliveryStream: string;
  /** Firehose's error log group. */
  readonly deliveryLogGroup: string;
  /** The pipe's log group (transport `pipes`). */
  readonly pipeLogGroup: string;
  /** The OpenSearch provisioner function's log group. */
  readonly provisionerLogGroup: string;
  /** The provisioner's custom-resource provider function's log group. */
  readonly provisionerProviderLogGroup: string;
  /** Lambda: the scheduled reconcile function (config `reconcile.enabled`). */
  readonly reconcileFunction: string;
  /** The reconcile function's log group. */
  readonly reconcileLogGroup: string;
  /** Lambda: a serverless profile's scheduled retention function (issue 42). */
  readonly retentionFunction: string;
  /** The retention function's log group. */
  readonly retentionLogGroup: string;
  /** Lambda: the direct-delivery indexer (config `delivery.mode: direct`), the events stream's reader there. */
  readonly indexerFunction: string;
  /** The indexer's log group. */
  readonly indexerLogGroup: string;
  /**
   * IAM: the indexer's role. Fixed so the OpenSearch writer mapping can name it while Firehose delivers, before and
   * after the role exists: a switch from direct to Firehose never takes the running indexer's access away.
   */
  readonly indexerRole: string;
}

/** Longest stem kfek accepts: the OpenSearch domain name (3-28 characters) is the stem itself. */
export const MAX_STEM_LENGTH = 28;

/** Every fixed physical name of the deployment `stem` (`kfek-sandbox`). */
export function physicalNamesFor(stem: string): PhysicalNames {
  return {
    stem,
    rawStream: `${stem}-raw`,
    eventsStream: `${stem}-events`,
    transformFunction: `${stem}-transform`,
    transformLogGroup: `/aws/lambda/${stem}-transform`,
    deliveryStream: `${stem}-delivery`,
    deliveryLogGroup: `/aws/kinesisfirehose/${stem}-delivery`,
    pipeLogGroup: `/aws/vendedlogs/pipes/${stem}-transform`,
    provisionerLogGroup: `/aws/lambda/${stem}-provisioner`,
    provisionerProviderLogGroup: `/aws/lambda/${stem}-provisioner-provider`,
    reconcileFunction: `${stem}-reconcile`,
    reconcileLogGroup: `/aws/lambda/${stem}-reconcile`,
    retentionFunction: `${stem}-retention`,
    retentionLogGroup: `/aws/lambda/${stem}-retention`,
    indexerFunction: `${stem}-indexer`,
    indexerLogGroup: `/aws/lambda/${stem}-indexer`,
    indexerRole: `${stem}-indexer`,
  };
}

/** The names of the pipeline's own log groups (never subscribed: an account-level policy must exclude them). */
export function pipelineLogGroupNames(names: PhysicalNames): readonly string[] {
  return [
    names.transformLogGroup,
    names.deliveryLogGroup,
    names.pipeLogGroup,
    names.provisionerLogGroup,
    names.provisionerProviderLogGroup,
    names.reconcileLogGroup,
    names.indexerLogGroup,
  ];
}
