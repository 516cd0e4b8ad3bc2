import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { RECONCILE_LOG_GROUP_DIMENSION, ReconcileMetricName } from '../../../core/contracts/metrics';
import { RECONCILE_SERVICE_NAME } from '../../../core/contracts/reconcile-env';
import type { MonitoringContext } from './context';
import { scheduledFunctionAlarms, scheduledSum } from './scheduled';

/** What the Monitoring stack knows of the scheduled reconcile function (by its fixed name, never an import). */
export interface ReconcileMonitoringProps {
  readonly functionName: string;
  /** How often it runs (config `reconcile.everyMinutes`): the alarms' period. */
  readonly every: Duration;
  /** CloudWatch namespace of its metrics (the config's `name`). */
  readonly metricsNamespace: string;
}

/** A reconcile metric of all log groups together (dimension `service` only), summed over one run's period. */
function total(props: ReconcileMonitoringProps, metricName: string, label?: string): cloudwatch.Metric {
  return scheduledSum(props, RECONCILE_SERVICE_NAME, metricName, label);
}

function describe(what: string, anchor: string): string {
  return `${what} What to do: docs/operations.md#${anchor}`;
}

/**
 * - `MissingEvents`: events CloudWatch Logs holds that are still not searchable (and kept nowhere) after the run's
 *   heal: every run publishes the metric, 0 when nothing is missing, so one period above 0 pages.
 * - `ReconcileErrors`: every attempt of a run failed (the schedule retries a failed run twice), so a window went
 *   unjudged: nothing would page about that window otherwise.
 * - `ReconcileNotRunning`: no run started in two periods in a row (the schedule gone or disabled, EventBridge unable
 *   to invoke the function): nothing is being proved.
 */
export function createReconcileAlarms(
  ctx: MonitoringContext,
  props: ReconcileMonitoringProps,
): cloudwatch.Alarm[] {
  return [
    new cloudwatch.Alarm(ctx.scope, 'MissingEventsAlarm', {
      alarmName: `${ctx.namePrefix}-MissingEvents`,
      metric: total(props, ReconcileMetricName.MissingEvents),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      // No run, no datapoint: that is ReconcileErrors' to say.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: describe(
        'Events CloudWatch Logs holds are not searchable in OpenSearch after the reconcile function healed what it could.',
        'reconcile-missing-events',
      ),
    }),
    ...scheduledFunctionAlarms(ctx, {
      name: 'Reconcile',
      functionName: props.functionName,
      every: props.every,
      errorsDescription: describe(
        'A reconcile run failed on every attempt: its window was not judged.',
        'reconcile-errors',
      ),
      notRunningDescription: describe('No reconcile run started in two periods.', 'reconcile-errors'),
    }),
  ];
}

/** The dashboard row: totals per run, and missing and healed per log group (a SEARCH over the LogGroup dimension). */
export function reconcileWidgets(props: ReconcileMonitoringProps): cloudwatch.IWidget[] {
  const seconds = props.every.toSeconds();
  const perGroup = (metricName: string): cloudwatch.MathExpression =>
    new cloudwatch.MathExpression({
      expression:
        `SEARCH('{${props.metricsNamespace},${RECONCILE_LOG_GROUP_DIMENSION},service} ` +
        `MetricName="${metricName}" service="${RECONCILE_SERVICE_NAME}"', 'Sum', ${seconds})`,
      label: '',
      period: props.every,
    });
  const graph = (title: string, left: cloudwatch.IMetric[]): cloudwatch.GraphWidget =>
    new cloudwatch.GraphWidget({ title, left, width: 8, height: 6, leftYAxis: { min: 0 } });
  return [
    graph('Reconcile: events judged, kept, healed, missing (per run)', [
      total(props, ReconcileMetricName.JudgedEvents, 'judged'),
      total(props, ReconcileMetricName.KeptEvents, 'kept (replay them)'),
      total(props, ReconcileMetricName.HealedEvents, 'healed'),
      total(props, ReconcileMetricName.MissingEvents, 'missing after heal'),
    ]),
    graph('Reconcile: missing after heal, per log group', [perGroup(ReconcileMetricName.MissingEvents)]),
    graph('Reconcile: healed, per log group', [perGroup(ReconcileMetricName.HealedEvents)]),
  ];
}
