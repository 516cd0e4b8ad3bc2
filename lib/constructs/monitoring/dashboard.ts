import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import { MetricName } from '../../../core/contracts/metrics';
import type { AlarmTargets } from './alarms';
import { FIVE_MINUTES, type MonitoringContext } from './context';
import { deliveryWidgets } from './delivery';

const SUM = { statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES };
const MAX = { statistic: cloudwatch.Stats.MAXIMUM, period: FIVE_MINUTES };

/** One graph of the dashboard, a third of its width. */
function graph(
  title: string,
  left: cloudwatch.IMetric[],
  extra: Partial<cloudwatch.GraphWidgetProps> = {},
): cloudwatch.GraphWidget {
  return new cloudwatch.GraphWidget({ title, left, width: 8, height: 6, ...extra });
}

/**
 * The pipeline dashboard, hand-built in data-flow order (rather than the monitoring library's per-service layout),
 * with the alarm lines on the graphs they belong to and every alarm's state at the bottom.
 */
export function createDashboard(
  ctx: MonitoringContext,
  props: AlarmTargets,
  alarms: readonly cloudwatch.IAlarm[],
  /** Rows added after the pipeline's own, before the alarms (the reconcile row). */
  extraRows: readonly (readonly cloudwatch.IWidget[])[] = [],
): cloudwatch.Dashboard {
  const { rawStream, eventsStream, domain } = props;
  const dashboard = new cloudwatch.Dashboard(ctx.scope, 'Dashboard', {
    dashboardName: `${ctx.namePrefix}-pipeline`,
    defaultInterval: Duration.hours(3),
  });
  dashboard.addWidgets(
    new cloudwatch.TextWidget({
      markdown:
        `# ${ctx.namePrefix} pipeline\n` +
        `CloudWatch Logs → raw stream → transform Lambda → events stream → ${props.delivery.mode === 'direct' ? 'indexer Lambda' : 'Firehose'} → OpenSearch ` +
        '(failed documents → S3). Rows follow the data; see docs/operations.md for what each alarm means.',
      width: 24,
      height: 2,
    }),
  );
  dashboard.addWidgets(...transformRow(ctx, props));
  dashboard.addWidgets(...functionRow(props.transformFunction));
  dashboard.addWidgets(
    ...deliveryWidgets(ctx, props.delivery, graph),
    graph('Stream write throttling', [
      rawStream.metricWriteProvisionedThroughputExceeded({ ...MAX, label: 'raw stream' }),
      eventsStream.metricWriteProvisionedThroughputExceeded({ ...MAX, label: 'events stream' }),
    ]),
  );
  // A Serverless collection (no domain) publishes none of these cluster metrics.
  if (domain !== undefined)
    dashboard.addWidgets(...domainRow(domain, ctx.thresholds.minFreeStorageSpaceInMiB));
  for (const row of extraRows) dashboard.addWidgets(...row);
  dashboard.addWidgets(
    new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...alarms], width: 24, height: 4 }),
  );
  return dashboard;
}

/** What the routes did, records in, the transform's counts and how far each consumer is behind. */
function transformRow(ctx: MonitoringContext, props: AlarmTargets): cloudwatch.IWidget[] {
  const { rawStream, eventsStream, transformFunction: fn, invokedByEventSourceMapping } = props;
  const iteratorAgeLine: cloudwatch.HorizontalAnnotation = {
    value: ctx.thresholds.maxIteratorAge.toMilliseconds(),
    label: 'alarm',
  };
  return [
    graph('Routes: masked values, dropped events, joined lines (EMF)', [
      ctx.emfMetric(MetricName.MaskedValues).with({ label: 'MaskedValues' }),
      ctx.emfMetric(MetricName.DroppedEvents).with({ label: 'DroppedEvents' }),
      ctx.emfMetric(MetricName.JoinedLines).with({ label: 'JoinedLines' }),
    ]),
    graph('Records in (raw stream)', [
      rawStream.metricIncomingRecords({ ...SUM, label: 'raw IncomingRecords' }),
    ]),
    graph(
      'Transform: records in / events out (EMF)',
      [
        ctx.emfMetric(MetricName.RecordsIn).with({ label: 'RecordsIn' }),
        ctx.emfMetric(MetricName.EventsOut).with({ label: 'EventsOut' }),
        ctx.emfMetric(MetricName.PoisonRecords).with({ label: 'PoisonRecords' }),
        // Pipes only (0 with the lambda transport): answers too large for the pipe, written by the enrichment.
        ctx.emfMetric(MetricName.OverflowDocuments).with({ label: 'OverflowDocuments' }),
      ],
      {
        // The ratio of sums, not the average of per-invocation ratios: it is what Kinesis and Firehose bill.
        // About 1 without aggregation (or with the Pipes transport); in the hundreds with it.
        right: [
          new cloudwatch.MathExpression({
            expression: 'IF(recordsOut > 0, eventsOut / recordsOut)',
            usingMetrics: {
              eventsOut: ctx.emfMetric(MetricName.EventsOut),
              recordsOut: ctx.emfMetric(MetricName.RecordsOut),
            },
            label: 'documents per events-stream record',
            period: FIVE_MINUTES,
          }),
        ],
        rightYAxis: { min: 0 },
      },
    ),
    graph(
      'Iterator age (max, ms)',
      [
        rawStream.metricGetRecordsIteratorAgeMilliseconds({ ...MAX, label: 'raw stream' }),
        // Event source mappings only (see AlarmTargets.invokedByEventSourceMapping).
        ...(invokedByEventSourceMapping
          ? [fn.metric('IteratorAge', { ...MAX, label: 'transform IteratorAge' })]
          : []),
        eventsStream.metricGetRecordsIteratorAgeMilliseconds({ ...MAX, label: 'events stream' }),
      ],
      { leftAnnotations: [iteratorAgeLine] },
    ),
  ];
}

/** The transform function's duration, concurrency, errors and throttles. */
function functionRow(fn: lambda.IFunction): cloudwatch.IWidget[] {
  return [
    graph('Transform duration (ms)', [
      fn.metricDuration({ statistic: cloudwatch.Stats.p(50), period: FIVE_MINUTES, label: 'p50' }),
      fn.metricDuration({ statistic: cloudwatch.Stats.p(95), period: FIVE_MINUTES, label: 'p95' }),
      fn.metricDuration({ ...MAX, label: 'max' }),
    ]),
    graph('Transform concurrency', [
      fn.metric('ConcurrentExecutions', { ...MAX, label: 'ConcurrentExecutions' }),
    ]),
    graph('Transform errors and throttles', [
      fn.metricErrors({ ...SUM, label: 'Errors' }),
      fn.metricThrottles({ ...SUM, label: 'Throttles' }),
    ]),
  ];
}

/** The domain's indexing rate, storage and memory, and cluster status. */
function domainRow(domain: opensearch.IDomain, minFreeStorageSpaceInMiB: number): cloudwatch.IWidget[] {
  return [
    graph('OpenSearch indexing rate (per minute)', [
      // IndexingRate is per minute; Sum across nodes at a 1-minute period is the cluster's rate.
      domain.metric('IndexingRate', { statistic: cloudwatch.Stats.SUM, period: Duration.minutes(1) }),
    ]),
    graph(
      'OpenSearch storage and memory',
      [
        domain.metricFreeStorageSpace({
          statistic: cloudwatch.Stats.MINIMUM,
          label: 'free storage (MiB, min node)',
        }),
      ],
      {
        right: [
          domain.metricJVMMemoryPressure({ statistic: cloudwatch.Stats.MAXIMUM, label: 'JVM pressure %' }),
        ],
        leftAnnotations: [{ value: minFreeStorageSpaceInMiB, label: 'alarm' }],
      },
    ),
    new cloudwatch.SingleValueWidget({
      title: 'OpenSearch cluster status',
      metrics: [
        domain.metricClusterStatusRed({ label: 'red' }),
        domain.metricClusterStatusYellow({ label: 'yellow' }),
        domain.metricClusterIndexWritesBlocked({ label: 'writes blocked' }),
      ],
      width: 8,
      height: 6,
    }),
  ];
}
