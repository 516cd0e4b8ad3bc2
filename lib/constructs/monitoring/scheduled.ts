import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { MonitoringContext } from './context';

/**
 * One of a scheduled function's own metrics (dimension `service`, in the config's namespace), summed over one run's
 * period: what the reconcile and retention functions publish per run.
 */
export function scheduledSum(
  props: { readonly metricsNamespace: string; readonly every: Duration },
  service: string,
  metricName: string,
  label?: string,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: props.metricsNamespace,
    metricName,
    dimensionsMap: { service },
    statistic: cloudwatch.Stats.SUM,
    period: props.every,
    ...(label !== undefined ? { label } : {}),
  });
}

/** A scheduled function the Monitoring stack watches by its fixed name (never an import). */
export interface ScheduledFunctionAlarmsProps {
  /** `Reconcile`, `Retention`: the start of the alarms' construct ids and names. */
  readonly name: string;
  readonly functionName: string;
  /** How often it runs: the alarms' period. */
  readonly every: Duration;
  /** What `<name>Errors` says: a run that failed on every attempt, and what that leaves undone. */
  readonly errorsDescription: string;
  /** What `<name>NotRunning` says. */
  readonly notRunningDescription: string;
}

/**
 * The two alarms every scheduled kfek function has, from the metrics Lambda publishes for it:
 * - `<name>Errors`: every attempt of a run failed (the schedule retries a failed run twice), so its work went undone
 *   and nothing of its own would say so;
 * - `<name>NotRunning`: no run started in two periods in a row (the schedule gone or disabled, EventBridge unable to
 *   invoke the function).
 */
export function scheduledFunctionAlarms(
  ctx: MonitoringContext,
  props: ScheduledFunctionAlarmsProps,
): cloudwatch.Alarm[] {
  const lambdaMetric = (metricName: string): cloudwatch.Metric =>
    new cloudwatch.Metric({
      namespace: 'AWS/Lambda',
      metricName,
      dimensionsMap: { FunctionName: props.functionName },
      statistic: cloudwatch.Stats.SUM,
      period: props.every,
    });
  return [
    new cloudwatch.Alarm(ctx.scope, `${props.name}ErrorsAlarm`, {
      alarmName: `${ctx.namePrefix}-${props.name}Errors`,
      metric: lambdaMetric('Errors'),
      // A run is tried three times: three errors in one period is a run that never finished.
      threshold: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: props.errorsDescription,
    }),
    new cloudwatch.Alarm(ctx.scope, `${props.name}NotRunningAlarm`, {
      alarmName: `${ctx.namePrefix}-${props.name}NotRunning`,
      metric: lambdaMetric('Invocations'),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      // Two periods: a run due at the end of one period may start in the next.
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      // Lambda publishes Invocations only when there are some: no data is no run.
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      alarmDescription: props.notRunningDescription,
    }),
  ];
}
