/**
 * The delivery's alarms and dashboard row, for either `delivery.mode`: the same three questions with the metrics each
 * delivery has. Did OpenSearch refuse part of a delivery (Firehose's success ratio; the indexer's `DeliveryErrors`)?
 * How old is the oldest record not yet delivered (Firehose's `DataFreshness`; the indexer's Lambda `IteratorAge`)?
 * Did documents go to the failed-documents bucket (Firehose's `DeliveryToS3.Records`; the indexer's
 * `RefusedDocuments`)? The freshness and failed-documents alarms keep their names in both modes, so a switch updates
 * them in place and their runbook entries (docs/operations.md) hold for both.
 */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { IndexerMetricName } from '../../../core/contracts/metrics';
import { INDEXER_SERVICE_NAME } from '../../../core/contracts/indexer-env';
import { FIVE_MINUTES, type MonitoringContext } from './context';

/**
 * What delivers documents to OpenSearch: the Firehose delivery stream (its metrics come from the context's
 * `firehoseMetric`), or the indexer function.
 */
export type DeliveryTarget =
  { readonly mode: 'firehose' } | { readonly mode: 'direct'; readonly indexerFunction: lambda.IFunction };

/** One hand-written alarm, as alarms.ts creates them. */
export type AlarmFactory = (
  name: string,
  options: Omit<cloudwatch.CreateAlarmOptions, 'evaluationPeriods' | 'alarmName'> & {
    readonly metric: cloudwatch.IMetric;
    readonly evaluationPeriods?: number;
  },
) => cloudwatch.Alarm;

/** An alarm description that says where the runbook is: operators read it in the notification e-mail. */
export function describe(what: string, anchor: string): string {
  return `${what} What to do: docs/operations.md#${anchor}`;
}

const indexerMetric = (ctx: MonitoringContext, metricName: string): cloudwatch.Metric =>
  ctx.serviceMetric(INDEXER_SERVICE_NAME, metricName);

/** The delivery's three alarms (see the file comment). */
export function createDeliveryAlarms(
  ctx: MonitoringContext,
  target: DeliveryTarget,
  alarm: AlarmFactory,
): cloudwatch.Alarm[] {
  return target.mode === 'direct'
    ? indexerAlarms(ctx, target.indexerFunction, alarm)
    : firehoseAlarms(ctx, alarm);
}

/** The indexer's alarms (mode `direct`), under the names Firehose's have, so a switch updates them in place. */
function indexerAlarms(
  ctx: MonitoringContext,
  indexerFunction: lambda.IFunction,
  alarm: AlarmFactory,
): cloudwatch.Alarm[] {
  const t = ctx.thresholds;
  return [
    alarm('DeliveryErrors', {
      metric: indexerMetric(ctx, IndexerMetricName.DeliveryErrors),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      // The event source mapping retries a reported record (and bisects its batch), so one bad period is not yet
      // a loss: as with Firehose's success ratio, 2 of 3 periods.
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: describe(
        'The indexer could not deliver part of a batch; Lambda retries it, then keeps it in the bucket.',
        'delivery-success',
      ),
    }),
    alarm('DeliveryDataFreshness', {
      // The age of the last record of the last batch the indexer was invoked with (Lambda's own metric).
      metric: indexerFunction.metric('IteratorAge', {
        statistic: cloudwatch.Stats.MAXIMUM,
        period: FIVE_MINUTES,
      }),
      threshold: t.maxDeliveryDataFreshnessInSeconds * 1000,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      // Emitted only while the function is invoked; an indexer that stops reading altogether shows up on the
      // events stream's iterator-age alarm.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: describe(
        'Records wait on the events stream too long before the indexer delivers them.',
        'data-freshness',
      ),
    }),
    alarm('FailedDocuments', {
      metric: indexerMetric(ctx, IndexerMetricName.RefusedDocuments),
      threshold: t.maxFailedDocuments,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: describe(
        'OpenSearch refused documents for good; the indexer wrote them to the failed-documents bucket.',
        'failed-documents',
      ),
    }),
  ];
}

/** Firehose's delivery alarms (mode `firehose`). */
function firehoseAlarms(ctx: MonitoringContext, alarm: AlarmFactory): cloudwatch.Alarm[] {
  const t = ctx.thresholds;
  const firehose = ctx.firehoseMetric;
  return [
    alarm('DeliverySuccess', {
      metric: firehose('DeliveryToAmazonOpenSearchService.Success', cloudwatch.Stats.AVERAGE),
      threshold: t.minDeliverySuccessRatio,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      // Firehose retries refused bulk requests for its retry duration, so one bad period is not yet a loss.
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      // Emitted only when Firehose delivers something: an idle pipeline is healthy.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: describe(
        'OpenSearch refused part of what Firehose tried to index.',
        'delivery-success',
      ),
    }),
    alarm('DeliveryDataFreshness', {
      metric: firehose('DeliveryToAmazonOpenSearchService.DataFreshness', cloudwatch.Stats.MAXIMUM),
      threshold: t.maxDeliveryDataFreshnessInSeconds,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      // A Firehose that stops reading altogether shows up on the events stream's iterator-age alarm.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: describe(
        'Records wait in Firehose too long before reaching OpenSearch.',
        'data-freshness',
      ),
    }),
    alarm('FailedDocuments', {
      // With S3 backup mode FailedDocumentsOnly, everything Firehose writes to S3 is a failed document
      // (under the AmazonOpenSearchService-failed/ prefix), so this count is exactly the documents lost to
      // OpenSearch. S3's own object-count metrics are daily and would fire a day late.
      metric: firehose('DeliveryToS3.Records', cloudwatch.Stats.SUM),
      threshold: t.maxFailedDocuments,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: describe(
        'Firehose gave up on documents and wrote them to the failed-documents bucket.',
        'failed-documents',
      ),
    }),
  ];
}

/** The dashboard's two delivery graphs: documents in, indexed and failed; success and freshness. */
export function deliveryWidgets(
  ctx: MonitoringContext,
  target: DeliveryTarget,
  graph: (
    title: string,
    left: cloudwatch.IMetric[],
    extra?: Partial<cloudwatch.GraphWidgetProps>,
  ) => cloudwatch.GraphWidget,
): cloudwatch.GraphWidget[] {
  if (target.mode === 'direct') {
    const indexer = (name: string): cloudwatch.Metric => indexerMetric(ctx, name).with({ label: name });
    const fn = target.indexerFunction;
    return [
      graph('Indexer delivery (documents, EMF)', [
        indexer(IndexerMetricName.DocumentsIn),
        indexer(IndexerMetricName.IndexedDocuments),
        indexer(IndexerMetricName.RefusedDocuments),
        indexer(IndexerMetricName.RetriedRequests),
      ]),
      graph('Indexer errors and age of the oldest record', [indexer(IndexerMetricName.DeliveryErrors)], {
        right: [
          fn.metric('IteratorAge', {
            statistic: cloudwatch.Stats.MAXIMUM,
            period: FIVE_MINUTES,
            label: 'IteratorAge (ms)',
          }),
          fn.metricErrors({ statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES, label: 'Errors' }),
        ],
        rightAnnotations: [
          { value: ctx.thresholds.maxDeliveryDataFreshnessInSeconds * 1000, label: 'alarm' },
        ],
      }),
    ];
  }
  const firehose = (metricName: string, label: string, statistic: string): cloudwatch.Metric =>
    ctx.firehoseMetric(metricName, statistic, label);
  return [
    graph('Firehose delivery (records)', [
      firehose('DataReadFromKinesisStream.Records', 'read from events stream', cloudwatch.Stats.SUM),
      firehose('DeliveryToAmazonOpenSearchService.Records', 'indexed', cloudwatch.Stats.SUM),
      firehose('DeliveryToS3.Records', 'failed → S3', cloudwatch.Stats.SUM),
    ]),
    graph(
      'Firehose success and freshness',
      [firehose('DeliveryToAmazonOpenSearchService.Success', 'success ratio', cloudwatch.Stats.AVERAGE)],
      {
        right: [
          firehose(
            'DeliveryToAmazonOpenSearchService.DataFreshness',
            'data freshness (s)',
            cloudwatch.Stats.MAXIMUM,
          ),
        ],
        leftYAxis: { min: 0, max: 1 },
      },
    ),
  ];
}
