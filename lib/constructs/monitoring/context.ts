import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { ResolvedThresholds } from './thresholds';

/** Every alarm and graph here looks at 5-minute periods unless it says otherwise. */
export const FIVE_MINUTES = Duration.minutes(5);

/**
 * What the parts of {@link PipelineMonitoring} (alarms, dashboard, queries) share: the construct they are created
 * in (so their construct IDs are the ones the construct always had), the name prefix, the resolved thresholds and
 * the two metric families no L2 construct offers.
 */
export interface MonitoringContext {
  readonly scope: Construct;
  readonly namePrefix: string;
  readonly thresholds: ResolvedThresholds;
  /** A metric the transform publishes in embedded metric format (Sum over 5 minutes). */
  readonly emfMetric: (metricName: string) => cloudwatch.Metric;
  /** An EMF metric another kfek function publishes under its own `service` (Sum over 5 minutes). */
  readonly serviceMetric: (service: string, metricName: string) => cloudwatch.Metric;
  /** A metric of the Firehose delivery stream (over 5 minutes). */
  readonly firehoseMetric: (metricName: string, statistic: string, label?: string) => cloudwatch.Metric;
}

export interface MonitoringContextProps {
  readonly scope: Construct;
  readonly namePrefix: string;
  readonly thresholds: ResolvedThresholds;
  readonly metricsNamespace: string;
  /** Powertools Metrics adds one dimension, `service`, set from the function's service name. */
  readonly transformServiceName: string;
  readonly deliveryStreamName: string;
}

export function monitoringContext(props: MonitoringContextProps): MonitoringContext {
  const serviceMetric = (service: string, metricName: string): cloudwatch.Metric =>
    new cloudwatch.Metric({
      namespace: props.metricsNamespace,
      metricName,
      dimensionsMap: { service },
      statistic: cloudwatch.Stats.SUM,
      period: FIVE_MINUTES,
    });
  return {
    scope: props.scope,
    namePrefix: props.namePrefix,
    thresholds: props.thresholds,
    emfMetric: (metricName) => serviceMetric(props.transformServiceName, metricName),
    serviceMetric,
    firehoseMetric: (metricName, statistic, label) =>
      new cloudwatch.Metric({
        namespace: 'AWS/Firehose',
        metricName,
        ...(label === undefined ? {} : { label }),
        dimensionsMap: { DeliveryStreamName: props.deliveryStreamName },
        statistic,
        period: FIVE_MINUTES,
      }),
  };
}
