/**
 * One reconcile run, wired: the log groups as their subscriptions to the raw stream see them, the four sides
 * (CloudWatch Logs, OpenSearch, kept data, the raw stream) over real clients, the transform's own planner (handed in),
 * and the engine (engine.ts). `kfek reconcile` and the scheduled reconcile function both run exactly this (through
 * cli/reconcile/service.ts, which hands in the planner), so the numbers the account's metrics show are the numbers the
 * command prints.
 */
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { S3Client } from '@aws-sdk/client-s3';
import type { IndexRotation } from '../contracts/index-naming';
import { ON_FAILURE_KEY_PREFIX } from '../contracts/kept-data';
import { s3ObjectStore } from '../kept/aws';
import type { KeptSources } from '../kept/collect';
import { kinesisPort } from '../kinesis/aws';
import { logsPort } from '../logs/aws';
import { BACKFILL_FILTER_NAME } from '../logs/model';
import type { LogsPort } from '../logs/ports';
import { accountRoutingProblem, accountRoutingRefusal, type TransformRoute } from '../contracts/routes';
import type { OpenSearchHttpClient } from '../opensearch/http';
import { cloudWatchSide, type CountMode } from './cloudwatch-side';
import { minuteOf, reconcile } from './engine';
import { HealRefusedError } from './errors';
import { rawStreamHealer } from './healer';
import { keptSide, type RawRecordTransform } from './kept-side';
import { keptStems } from './kept-stems';
import type { ReconcileGroup, ReconcileReport } from './model';
import { type Clock, type DocumentPlanner, type Healer, RequestMeter } from './ports';
import { searchSide } from './search-side';

/** A route as reconcile needs it: the transform's settings and the stem of its indices. */
export type ReconcileRoute = TransformRoute & { readonly indexStem: string };

export interface TransformSettings {
  /** The profile's routes, in order (config `routes`). */
  readonly routes: readonly ReconcileRoute[];
  /** The default route's index stem (config `delivery.indexPrefix`). */
  readonly defaultStem: string;
  /**
   * The regions the pipeline receives logs from (config: the profile's region and `sources.regions`).
   * @default - none: as the local transform runs
   */
  readonly sourceRegions?: readonly string[];
}

/**
 * What the transform makes of events and raw records: the transform's own pure core, which lives in lambda/ and so is
 * handed in (core/reconcile/planner.ts `TransformPlanner`), never imported here.
 */
export type ReconcilePlanner = DocumentPlanner & RawRecordTransform;

/** A log group to reconcile, as the profile (or the command line) names it. */
export interface GroupSetting {
  readonly name: string;
  /**
   * The subscription's filter pattern when the group has no subscription to the raw stream to read it from.
   * @default '' (every event)
   */
  readonly filterPattern?: string;
}

export interface ReconcileSettings {
  readonly groups: readonly GroupSetting[];
  /**
   * The account that owns the groups. The scheduled function knows it (its own account); the command asks
   * DescribeLogGroups.
   * @default - from each group's ARN
   */
  readonly owner?: string;
  /** The raw stream's name or ARN: what the groups' subscriptions write to, and where the heal sends. */
  readonly rawStream: string;
  readonly index: { readonly prefix: string; readonly rotation: IndexRotation };
  /**
   * The documents are in an OpenSearch Serverless collection (docs/serverless.md): lookups send no routing, and the
   * search client must sign for `aoss` (the caller makes it).
   * @default false (a domain)
   */
  readonly serverless?: boolean;
  readonly routes: readonly ReconcileRoute[];
  /** @default - none (as the local transform runs) */
  readonly sourceRegions?: readonly string[];
  readonly kept: KeptSources;
  readonly since: number;
  readonly until: number;
  readonly lagInMillis: number;
  /** @default 60000 */
  readonly joinLookbackInMillis?: number;
  readonly countMode: CountMode;
  /** @default - no heal */
  readonly heal?: {
    readonly timeoutInMillis: number;
    readonly pollIntervalInMillis?: number;
    /**
     * What a group the heal cannot send as live did (a route takes its events by source account) does to the run:
     * `fail` refuses the run before anything is read or sent, as `kfek backfill` refuses it (the command); `skip`
     * judges it and heals the others, reporting why its missing events were not sent (the scheduled function,
     * which must keep judging every group).
     * @default 'fail'
     */
    readonly onRefusedGroup?: 'fail' | 'skip';
  };
  /** @default 1000 */
  readonly maxListedEvents?: number;
}

export interface ReconcileClients {
  readonly logs: CloudWatchLogsClient;
  readonly kinesis: KinesisClient;
  readonly search: OpenSearchHttpClient;
  /** For messages about connection failures. */
  readonly endpoint?: string;
}

export interface ReconcileRun extends ReconcileReport {
  /** Kept objects read that name no event (poison records, sequence-number ranges): replay tells what they hold. */
  readonly unreadableKept: readonly string[];
  /** `<name>-*` index templates kfek's record does not vouch for (kept-stems.ts), one warning line each. */
  readonly ignoredTemplates: readonly string[];
}

export async function runReconcileWith(
  plannerFor: (transform: TransformSettings) => ReconcilePlanner,
  settings: ReconcileSettings,
  clients: ReconcileClients,
  clock: Clock,
  onProgress?: (note: string) => void,
): Promise<ReconcileRun> {
  const meter = new RequestMeter();
  const logs = logsPort(clients.logs, {
    ...(clients.endpoint !== undefined ? { endpoint: clients.endpoint } : {}),
    retry: { sleep: clock.sleep },
  });
  const groups = await resolveGroups(settings, logs, meter);
  refuseHealOfRefusedGroups(settings, groups);
  const lookback = settings.joinLookbackInMillis ?? 60_000;
  const transform = {
    routes: settings.routes,
    defaultStem: settings.index.prefix,
    ...(settings.sourceRegions !== undefined ? { sourceRegions: settings.sourceRegions } : {}),
  };
  const planner = plannerFor(transform);
  // Every stem kfek keeps, retired ones included: an event in a kept old stem's index is found there.
  const stems = await keptStems({
    client: clients.search,
    meter,
    current: [settings.index.prefix, ...settings.routes.map((r) => r.indexStem)],
  });
  if (stems.note !== undefined) onProgress?.(stems.note);
  for (const line of stems.ignored) onProgress?.(`warning: ${line}`);
  const kept = keptSide({
    sources: settings.kept,
    since: keptSince(settings.since),
    transform: planner,
    meter,
  });
  const report = await reconcile(
    {
      groups,
      since: settings.since,
      until: settings.until,
      lagInMillis: settings.lagInMillis,
      joinLookbackInMillis: lookback,
      ...(settings.heal !== undefined ? { heal: settings.heal } : {}),
      ...(settings.maxListedEvents !== undefined ? { maxListedEvents: settings.maxListedEvents } : {}),
      ...(onProgress !== undefined ? { onProgress } : {}),
    },
    {
      cloudWatch: cloudWatchSide({
        mode: settings.countMode,
        logs,
        client: clients.logs,
        clock,
        meter,
        ...(clients.endpoint !== undefined ? { endpoint: clients.endpoint } : {}),
      }),
      search: searchSide({
        client: clients.search,
        stems: stems.stems,
        rotation: settings.index.rotation,
        meter,
        routing: settings.serverless !== true,
        lookupPerIndex: settings.serverless === true,
      }),
      kept,
      planner,
      ...(settings.heal !== undefined ? { healer: healerOf(settings, clients, clock, meter) } : {}),
      clock,
      meter,
    },
  );
  // The kept data was read only if some event was not searchable; its unreadable items matter only then.
  const unreadableKept =
    report.totals.missing + report.totals.kept > 0 ? (await kept.index()).unreadable : [];
  return { ...report, requests: meter.snapshot(), unreadableKept, ignoredTemplates: stems.ignored };
}

/** With `--heal` and a group the heal may not send (by default), the run fails before it reads anything. */
function refuseHealOfRefusedGroups(settings: ReconcileSettings, groups: readonly ReconcileGroup[]): void {
  const refused = groups.flatMap((g) => (g.healRefusal === undefined ? [] : [g.healRefusal]));
  if (
    settings.heal === undefined ||
    (settings.heal.onRefusedGroup ?? 'fail') !== 'fail' ||
    refused.length === 0
  )
    return;
  throw new HealRefusedError(
    accountRoutingRefusal(
      'reconcile --heal',
      refused,
      'Leave these groups out (--log-group), reconcile them without --heal, or re-send what the raw stream ' +
        'still holds with kfek replay.',
    ),
  );
}

/** The heal sends through the raw stream, as backfill does. */
function healerOf(
  settings: ReconcileSettings,
  clients: ReconcileClients,
  clock: Clock,
  meter: RequestMeter,
): Healer {
  return rawStreamHealer({
    kinesis: kinesisPort(clients.kinesis),
    rawStream: settings.rawStream,
    rotation: settings.index.rotation,
    clock,
    meter,
  });
}

/**
 * CloudWatch Logs takes events up to 2 hours ahead of its own clock (PutLogEvents: "None of the log events in the
 * batch can be more than 2 hours in the future"), so an event of the judged window may have been taken in, and kept
 * data written about it, up to that long before its own time.
 */
const MAX_EVENT_AHEAD_MILLIS = 2 * 60 * 60_000;

/**
 * The oldest kept object that can hold an event of the judged window: the window is judged from the start of
 * `since`'s minute (engine.ts `judgedMinutes`), not from `since` itself, and its first event may have been taken in
 * (and failed) up to {@link MAX_EVENT_AHEAD_MILLIS} before its timestamp.
 * https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_PutLogEvents.html
 */
export function keptSince(since: number): number {
  return minuteOf(since) - MAX_EVENT_AHEAD_MILLIS;
}

/** Each group's owner, and the filter pattern and names of its subscription to the raw stream (as backfill reads them). */
async function resolveGroups(
  settings: ReconcileSettings,
  logs: LogsPort,
  meter: RequestMeter,
): Promise<ReconcileGroup[]> {
  const stream = settings.rawStream;
  const streamName = stream.startsWith('arn:') ? stream.slice(stream.lastIndexOf('/') + 1) : stream;
  const groups: ReconcileGroup[] = [];
  for (const setting of settings.groups) {
    let owner = settings.owner;
    if (owner === undefined) {
      meter.cloudWatch += 1;
      owner = (await logs.describeGroup(setting.name)).owner;
    }
    meter.cloudWatch += 1;
    const toRaw = (await logs.subscriptions(setting.name)).filter(
      (s) => s.destinationArn === stream || s.destinationArn.endsWith(`:stream/${streamName}`),
    );
    const healRefusal = accountRoutingProblem(setting.name, owner, settings.routes);
    groups.push({
      logGroup: setting.name,
      owner,
      ...(healRefusal !== undefined ? { healRefusal } : {}),
      filterPattern: toRaw[0]?.filterPattern ?? setting.filterPattern ?? '',
      subscriptionFilters: toRaw.length > 0 ? toRaw.map((s) => s.filterName) : [BACKFILL_FILTER_NAME],
    });
  }
  return groups;
}

/**
 * Kept data in the failed-records bucket: dead letters under `transform.deadLetterPrefix`, discarded batches under
 * `aws/lambda/` (Lambda's own prefix), failed documents under `delivery.failedDocumentsPrefix`.
 */
export function bucketKeptSources(
  s3: S3Client,
  bucket: string,
  prefixes: { readonly deadLetterPrefix: string; readonly failedDocumentsPrefix: string },
): KeptSources {
  const store = s3ObjectStore(s3, bucket);
  return {
    deadLetter: { store, prefix: prefixes.deadLetterPrefix },
    discardedBatches: { store, prefix: ON_FAILURE_KEY_PREFIX },
    failedDocuments: { store, prefix: prefixes.failedDocumentsPrefix },
    maxMessages: 0,
  };
}
