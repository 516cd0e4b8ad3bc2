/**
 * Composition of cross-account delivery (docs/multi-account.md), called by lib/app.ts for a profile with
 * `sources.accounts` or `sources.organizationId`.
 *
 * Stacks in other regions name the raw stream and the destination role by ARNs built from fixed names (account,
 * region and names are all known at synth), not by CloudFormation exports: an export can only be imported in its
 * own region, and CDK's `crossRegionReferences` replaces it with SSM parameters written by a custom resource in
 * every consuming region, i.e. a Lambda function per region and a deploy-time dependency that blocks updating or
 * deleting the producer while a reader exists. A plain ARN has neither; the order of deployment (Search, role,
 * destinations) is kept with stack dependencies instead.
 */
import { type App, Arn, ArnFormat, Aws } from 'aws-cdk-lib';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import { type PipelineConfig } from '../core/config';
import { destinationNameFor, subscriptionFilterNameFor } from '../core/contracts/cross-account-naming';
import { physicalNamesFor } from '../core/contracts/physical-names';
import { DestinationRoleStack, DestinationStack, SourceAccountStack } from './stacks/cross-account-stacks';

export interface CrossAccountStacks {
  readonly role: DestinationRoleStack;
  /** Central account, by source region. */
  readonly destinations: ReadonlyMap<string, DestinationStack>;
  /** Source accounts, by region. */
  readonly sources: ReadonlyMap<string, SourceAccountStack>;
}

export interface CrossAccountInputs {
  readonly rawStream: kinesis.IStream;
  /** Common stack props: tags, termination protection. */
  readonly tags: Readonly<Record<string, string>>;
  readonly terminationProtection: boolean;
}

/** `eu-west-1` -> `EuWest1`, for construct ids. */
function pascal(region: string): string {
  return region
    .split('-')
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
}

/** An ARN in the central account (`region` '' for a global service such as IAM). */
function centralArn(a: {
  readonly account: string;
  readonly service: string;
  readonly resource: string;
  readonly resourceName: string;
  readonly region: string;
  /** @default ArnFormat.SLASH_RESOURCE_NAME */
  readonly format?: ArnFormat;
}): string {
  return Arn.format({
    partition: Aws.PARTITION,
    service: a.service,
    region: a.region,
    account: a.account,
    resource: a.resource,
    resourceName: a.resourceName,
    arnFormat: a.format ?? ArnFormat.SLASH_RESOURCE_NAME,
  });
}

/** Builds the central role and destination stacks and the source-account stacks of a cross-account profile. */
export function buildCrossAccount(
  app: App,
  config: PipelineConfig,
  inputs: CrossAccountInputs,
): CrossAccountStacks {
  const { account, region } = config.env;
  if (account === undefined || region === undefined) {
    // The config reader reports this first; a direct caller gets the same rule.
    throw new Error('buildCrossAccount: the profile must pin "account" and "region" (the central account).');
  }
  const stem = `${config.name}-${config.profile}`;
  const s = config.sources;
  const common = { tags: inputs.tags, terminationProtection: inputs.terminationProtection };
  const roleName = `${stem}-logs-destination`;
  const destinationName = destinationNameFor(stem);

  const role = new DestinationRoleStack(app, 'DestinationRole', {
    ...common,
    env: { account, region },
    stackName: `${stem}-destination-role`,
    description: `kfek (${config.profile}): role CloudWatch Logs assumes to write the cross-account destinations' logs`,
    stream: inputs.rawStream,
    roleName,
    sourceAccounts: s.accounts,
    organizationId: s.organizationId,
    regions: s.regions,
  });

  const arn = (service: string, resource: string, resourceName: string, inRegion: string): string =>
    centralArn({ account, service, resource, resourceName, region: inRegion });
  const rawStreamArn = arn('kinesis', 'stream', physicalNamesFor(stem).rawStream, region);
  const roleArn = arn('iam', 'role', roleName, '');

  const destinations = new Map<string, DestinationStack>();
  const sources = new Map<string, SourceAccountStack>();
  for (const sourceRegion of s.regions) {
    const destination = new DestinationStack(app, `Destination${pascal(sourceRegion)}`, {
      ...common,
      env: { account, region: sourceRegion },
      stackName: `${stem}-destination-${sourceRegion}`,
      description: `kfek (${config.profile}): CloudWatch Logs destination in ${sourceRegion} for the source accounts`,
      destinationName,
      targetArn: rawStreamArn,
      roleArn,
      sourceAccounts: s.accounts,
      organizationId: s.organizationId,
    });
    // CloudWatch Logs test-writes to the stream as the role when the destination is created.
    destination.addStackDependency(role);
    destinations.set(sourceRegion, destination);

    // No stack dependency on the destination: the source stack deploys under a source account's credentials,
    // where `cdk deploy` must not try to deploy the central stacks too. docs/multi-account.md gives the order.
    const source = new SourceAccountStack(app, `Source${pascal(sourceRegion)}`, {
      tags: inputs.tags,
      env: { region: sourceRegion },
      stackName: `${stem}-source-${sourceRegion}`,
      description: `kfek (${config.profile}): subscriptions of a source account in ${sourceRegion} to the central destination`,
      destinationArn: centralArn({
        account,
        service: 'logs',
        resource: 'destination',
        resourceName: destinationName,
        region: sourceRegion,
        format: ArnFormat.COLON_RESOURCE_NAME,
      }),
      filterName: subscriptionFilterNameFor(stem, sourceRegion),
      remote: s.remote,
    });
    sources.set(sourceRegion, source);
  }
  return { role, destinations, sources };
}
