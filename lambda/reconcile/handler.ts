/**
 * The scheduled reconcile function (issue 32): every `reconcile.everyMinutes` (an EventBridge schedule) it runs
 * `kfek reconcile --heal` over the window that ended `reconcile.lagMinutes` before it was due, with Logs Insights
 * counting the CloudWatch side, and publishes `MissingEvents` and `HealedEvents` (per log group and in total),
 * `KeptEvents` and `JudgedEvents` as EMF metrics (core/contracts/metrics.ts). The Monitoring stack alarms on
 * `MissingEvents`.
 *
 * A thin adapter: the environment is read and the clients created once per container; each run is the reconcile
 * service `kfek reconcile` runs too (core/reconcile/service.ts) with the same planner (planner.ts), so the account's
 * metrics count exactly what the command prints.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { S3Client } from '@aws-sdk/client-s3';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { RECONCILE_LOG_GROUP_DIMENSION, ReconcileMetricName } from '../../core/contracts/metrics';
import { DEFAULT_SIGNING_SERVICE } from '../../core/contracts/indexer-env';
import { readReconcileEnvironment } from '../../core/contracts/reconcile-env';
import { createHttpClient } from '../../core/opensearch/http';
import type { StateCounts } from '../../core/reconcile/model';
import { scheduledWindow } from '../../core/reconcile/schedule';
import { bucketKeptSources, type ReconcileRun, runReconcileWith } from '../../core/reconcile/service';
import { TransformPlanner } from '../../core/reconcile/planner';

const env = readReconcileEnvironment(process.env);
const region = process.env.AWS_REGION ?? '';
const job = env.job;
const logger = new Logger({ serviceName: env.serviceName });
const metrics = new Metrics({ namespace: env.metricsNamespace, serviceName: env.serviceName });
// One attempt per call: the reconcile service retries throttling itself (with the CLI's backoff and messages).
const logs = new CloudWatchLogsClient({ maxAttempts: 1 });
const kinesis = new KinesisClient({});
const s3 = new S3Client({});
const search = createHttpClient({
  baseUrl: job.openSearchUrl,
  // A Serverless collection's endpoint takes requests signed for `aoss` only (docs/serverless.md).
  auth: { kind: 'sigv4', region, service: job.signingService ?? DEFAULT_SIGNING_SERVICE },
  maxAttempts: 5,
});
const routes = env.routes.map((route) => ({
  ...route,
  indexStem: job.routeStems[route.name] ?? job.indexPrefix,
}));
const clock = {
  now: Date.now,
  sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
};

/** The longest the heal waits for its events, and what the run keeps back of its time budget for the rest. */
const MAX_HEAL_WAIT_MILLIS = 5 * 60_000;
const RESERVE_MILLIS = 60_000;

export interface ReconcileSummary {
  readonly since: string;
  readonly until: string;
  readonly totals: StateCounts;
}

export async function handler(event: ScheduledEvent, context: Context): Promise<ReconcileSummary> {
  logger.addContext(context);
  const dueAt = Date.parse(event.time);
  const { since, until } = scheduledWindow(
    Number.isFinite(dueAt) ? dueAt : clock.now(),
    job.everyMinutes,
    job.lagMinutes,
  );
  // The heal waits at most what the invocation can spare after the reads and before its timeout.
  const healWait = Math.min(MAX_HEAL_WAIT_MILLIS, context.getRemainingTimeInMillis() - 2 * RESERVE_MILLIS);
  try {
    const run = await runReconcileWith(
      (transform) => new TransformPlanner(transform),
      {
        groups: job.logGroups,
        owner: job.account,
        rawStream: job.rawStreamArn,
        index: { prefix: job.indexPrefix, rotation: job.indexRotation },
        serverless: job.signingService === 'aoss',
        routes,
        kept: bucketKeptSources(s3, job.bucket, job),
        since,
        until,
        lagInMillis: job.lagMinutes * 60_000,
        countMode: 'insights',
        // A group whose route takes events by source account is judged but never healed: the run goes on for the
        // others and says why (the command refuses such a run instead, as backfill does).
        ...(job.heal && healWait > 0
          ? { heal: { timeoutInMillis: healWait, onRefusedGroup: 'skip' as const } }
          : {}),
        maxListedEvents: 100,
      },
      { logs, kinesis, search },
      clock,
      (note) => logger.debug(note),
    );
    publish(run);
    logger.info('reconciled', {
      window: run.window,
      totals: run.totals,
      heal: run.heal,
      requests: run.requests,
      exactTier: run.exactTier,
    });
    // A `kfek-*` template kfek's record does not vouch for is someone else's: said loudly, never read as kfek's.
    for (const line of run.ignoredTemplates) logger.warn('index template not trusted', { reason: line });
    for (const group of run.groups) {
      if (group.healRefused !== undefined) {
        logger.warn('missing events not healed', { logGroup: group.logGroup, reason: group.healRefused });
      }
    }
    if (run.totals.missing > 0) {
      logger.warn('events still missing after the heal (docs/operations.md, "Reconcile")', {
        missing: run.groups.flatMap((g) =>
          g.events.filter((v) => v.state === 'missing').map((v) => ({ logGroup: g.logGroup, ...v })),
        ),
      });
    }
    return { since: run.window.since, until: run.window.until, totals: run.totals };
  } finally {
    logger.resetKeys();
  }
}

/** One EMF line for the totals, and one per log group and metric (Missing, Healed) with the LogGroup dimension. */
function publish(run: ReconcileRun): void {
  for (const group of run.groups) {
    for (const [name, value] of [
      [ReconcileMetricName.MissingEvents, group.states.missing],
      [ReconcileMetricName.HealedEvents, group.states.healed],
    ] as const) {
      const single = metrics.singleMetric();
      single.addDimension(RECONCILE_LOG_GROUP_DIMENSION, group.logGroup);
      single.addMetric(name, MetricUnit.Count, value);
    }
  }
  const t = run.totals;
  metrics.addMetric(ReconcileMetricName.MissingEvents, MetricUnit.Count, t.missing);
  metrics.addMetric(ReconcileMetricName.HealedEvents, MetricUnit.Count, t.healed);
  metrics.addMetric(ReconcileMetricName.KeptEvents, MetricUnit.Count, t.kept);
  metrics.addMetric(
    ReconcileMetricName.JudgedEvents,
    MetricUnit.Count,
    run.groups.reduce((n, g) => n + g.cloudWatchEvents, 0),
  );
  metrics.publishStoredMetrics();
}
