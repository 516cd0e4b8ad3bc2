import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { RETENTION_SERVICE_NAME, RetentionMetricName } from '../../../core/contracts/retention-env';
import type { MonitoringContext } from './context';
import { scheduledFunctionAlarms, scheduledSum } from './scheduled';

/** What the Monitoring stack knows of a serverless profile's retention function (by its fixed name). */
export interface RetentionMonitoringProps {
  readonly functionName: string;
  /** How often it runs: the alarms' period. */
  readonly every: Duration;
  /** CloudWatch namespace of its metrics (the config's `name`). */
  readonly metricsNamespace: string;
}

/** One of the function's own metrics (dimension `service`), summed over one run's period. */
function own(props: RetentionMonitoringProps, metricName: string, label?: string): cloudwatch.Metric {
  return scheduledSum(props, RETENTION_SERVICE_NAME, metricName, label);
}

const WHAT_TO_DO = ' What to do: docs/serverless.md#retention';

/**
 * When the retention function cannot do its job (docs/serverless.md, "Retention"), each pages:
 * - `RetentionFailures`: an index past retention was not deleted (a refused or failed DELETE) or the listing was
 *   refused or failed, so the collection keeps (and bills) what it should not;
 * - `RetentionErrors`: every attempt of a run failed before it could report (its environment, a crash);
 * - `RetentionNotRunning`: no run started in two periods (the schedule gone or disabled, EventBridge unable to
 *   invoke the function).
 */
export function createRetentionAlarms(
  ctx: MonitoringContext,
  props: RetentionMonitoringProps,
): cloudwatch.Alarm[] {
  return [
    new cloudwatch.Alarm(ctx.scope, 'RetentionFailuresAlarm', {
      alarmName: `${ctx.namePrefix}-RetentionFailures`,
      metric: own(props, RetentionMetricName.Failures),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      // No run, no datapoint: that is RetentionNotRunning's to say.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: `An index past its retention was not deleted from the collection, or listing them was refused.${WHAT_TO_DO}`,
    }),
    ...scheduledFunctionAlarms(ctx, {
      name: 'Retention',
      functionName: props.functionName,
      every: props.every,
      errorsDescription: `A retention run failed on every attempt: nothing was deleted.${WHAT_TO_DO}`,
      notRunningDescription: `No retention run started in two periods.${WHAT_TO_DO}`,
    }),
  ];
}

/** The dashboard row: indices deleted and failures per run. */
export function retentionWidgets(props: RetentionMonitoringProps): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'Retention: indices deleted, failures (per run)',
      left: [
        own(props, RetentionMetricName.DeletedIndices, 'deleted'),
        own(props, RetentionMetricName.Failures, 'not deleted (alarm)'),
      ],
      width: 12,
      height: 6,
      leftYAxis: { min: 0 },
    }),
  ];
}
