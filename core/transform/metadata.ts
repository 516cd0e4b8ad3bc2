/**
 * The `cloudwatch` fields of a document: what CloudWatch Logs says about an event (its envelope and, with cross-account
 * centralization, its `extractedFields`), never what the log line says. Pure: no SDK, no environment, no I/O.
 */
import { regionFromSubscriptionFilters } from '../contracts/cross-account-naming';
import type { CloudWatchLogEvent } from './decode';
import type { CloudWatchMetadata } from './types';

/** Where the envelope-level metadata of an event comes from. */
export interface EventSource {
  readonly logGroup: string;
  readonly logStream: string;
  readonly owner: string;
  /**
   * The envelope's `subscriptionFilters`: a kfek source stack names its filter `<stem>@<region>`, which gives
   * `cloudwatch.region` when no `@aws.region` is extracted (core/contracts/cross-account-naming.ts).
   */
  readonly subscriptionFilters?: readonly string[];
}

/**
 * `cloudwatch.region` of an event: CloudWatch's own `@aws.region` (cross-account centralization) when extracted; else
 * the one source region when the pipeline has one; else the region a kfek source stack's subscription filter names
 * (`<stem>@<region>`, core/contracts/cross-account-naming.ts) if it is one of `sourceRegions` (the sending account
 * names its filters, so a name outside them proves nothing); else none.
 */
export function regionOf(
  event: CloudWatchLogEvent,
  source: EventSource,
  sourceRegions?: readonly string[],
): string | undefined {
  const extracted = event.extractedFields?.['@aws.region'];
  return typeof extracted === 'string' ? extracted : envelopeRegion(source, sourceRegions);
}

/** The region of an envelope's events that carry no `@aws.region` of their own ({@link regionOf}). */
export function envelopeRegion(
  source: EventSource,
  sourceRegions: readonly string[] | undefined,
): string | undefined {
  if (sourceRegions?.length === 1) return sourceRegions[0];
  const claimed = regionFromSubscriptionFilters(source.subscriptionFilters ?? []);
  return sourceRegions === undefined || (claimed !== undefined && sourceRegions.includes(claimed))
    ? claimed
    : undefined;
}

/** The account an event comes from: its `@aws.account` (centralization) when it has one, else the envelope's owner. */
export function sourceAccountOf(event: CloudWatchLogEvent, source: EventSource): string {
  const account = event.extractedFields?.['@aws.account'];
  return typeof account === 'string' ? account : source.owner;
}

export function toCloudWatchMetadata(
  event: CloudWatchLogEvent,
  source: EventSource,
  sourceRegions?: readonly string[],
): CloudWatchMetadata {
  const account = event.extractedFields?.['@aws.account'];
  const region = regionOf(event, source, sourceRegions);
  return {
    id: event.id,
    logGroup: source.logGroup,
    logStream: source.logStream,
    owner: source.owner,
    ...(typeof account === 'string' ? { account } : {}),
    ...(region === undefined ? {} : { region }),
  };
}

/** True for a Lambda function's log group (its name is set by CloudWatch Logs, not by what the function writes). */
export function isLambdaLogGroup(logGroup: string): boolean {
  return logGroup.startsWith('/aws/lambda/');
}
