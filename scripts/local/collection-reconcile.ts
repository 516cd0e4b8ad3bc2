/**
 * `npm start`'s last step on a serverless profile: the reconcile service (core/reconcile/service.ts, the code
 * `kfek reconcile` and the scheduled reconcile function run) over the run's window, against moto and the local
 * collection (local-collection.ts). It runs in this process rather than as the CLI child of reconcile-step.ts because
 * it must sign for `aoss` and send no routing (`serverless: true`), which the CLI's reconcile cannot be told from a
 * local URL. What was kept is read from moto's bucket: the transform's dead letters and the indexer's refused
 * documents (direct-delivery.ts); discarded batches stay in the run's folder, which the CLI reads and this step
 * does not, so an event lost that way is reported missing, never hidden.
 */
import type { PipelineConfig } from '../../core/config';
import { type Clock, sleep } from '../../core/clock';
import { TransformPlanner } from '../../core/reconcile/planner';
import type { ReconcileRun } from '../../core/reconcile/service';
import { bucketKeptSources, runReconcileWith } from '../../core/reconcile/service';
import { localAwsClients } from './aws-clients';
import { LOCAL_FAILED_DOCUMENTS_PREFIX } from './direct-delivery';
import { collectionClient } from './local-collection';
import type { ReconcileStepOptions, ReconcileStepResult } from './reconcile-step';

/** Reconciles the run's window on the collection; exit code 0 when nothing is missing, 1 otherwise or on a failure. */
export async function runCollectionReconcile(
  config: PipelineConfig,
  options: ReconcileStepOptions,
  now: () => number,
): Promise<ReconcileStepResult> {
  const aws = localAwsClients(options.awsEndpoint, options.region);
  const clock: Clock = { now, sleep };
  try {
    const run = await runReconcileWith(
      (transform) => new TransformPlanner(transform),
      {
        groups: options.logGroups.map((name) => ({
          name,
          filterPattern:
            config.sources.logGroups.find((g) => g.name === name)?.filterPattern ??
            config.sources.filterPattern,
        })),
        rawStream: options.rawStreamArn,
        index: { prefix: config.delivery.indexPrefix, rotation: config.delivery.indexRotation },
        serverless: true,
        routes: config.routes,
        kept: bucketKeptSources(aws.s3, options.deadLetterBucket, {
          deadLetterPrefix: config.transform.deadLetterPrefix,
          failedDocumentsPrefix: LOCAL_FAILED_DOCUMENTS_PREFIX,
        }),
        since: options.since.getTime(),
        until: now(),
        lagInMillis: 0,
        countMode: 'scan',
      },
      {
        logs: aws.logs,
        kinesis: aws.kinesis,
        search: collectionClient(options.openSearchUrl, options.region, 3),
        endpoint: options.awsEndpoint,
      },
      clock,
    );
    return { code: run.totals.missing > 0 ? 1 : 0, report: formatRun(run) };
  } catch (error) {
    return {
      code: 1,
      report: '',
      error: `reconcile: ${error instanceof Error ? error.message : String(error)}`,
    };
  } finally {
    aws.destroy();
  }
}

/** The run's states per log group, and the events still missing (at most the service's listed ones). */
export function formatRun(run: ReconcileRun): string {
  const states = (counts: ReconcileRun['totals']): string =>
    Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([state, n]) => `${state} ${n}`)
      .join(', ') || 'no events';
  return [
    `window ${run.window.since} .. ${run.window.judgedUntil} (counted with ${run.countedWith})`,
    ...run.groups.map((g) => `${g.logGroup}: ${states(g.states)}`),
    `total: ${states(run.totals)}; missing ${run.totals.missing}`,
  ].join('\n');
}
