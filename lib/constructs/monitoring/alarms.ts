import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import type * as sns from 'aws-cdk-lib/aws-sns';
import {
  DefaultDashboardFactory,
  MonitoringFacade,
  OpenSearchClusterStatus,
  SnsAlarmActionStrategy,
} from 'cdk-monitoring-constructs';
import { MetricName } from '../../../core/contracts/metrics';
import { FIVE_MINUTES, type MonitoringContext } from './context';
import { createDeliveryAlarms, type DeliveryTarget, describe } from './delivery';

/*
 * The pipeline's alarms. Kinesis, Lambda and OpenSearch alarms come from cdk-monitoring-constructs, whose factories
 * encode the usual statistics and missing-data choices. Its Firehose monitoring covers Direct PUT and format
 * conversion only, so the delivery alarms, the EMF poison-record alarm and the per-node free-storage alarm (the
 * library offers a cluster-wide percentage) are plain `cloudwatch.Alarm`s.
 */

/** What the alarms watch. */
export interface AlarmTargets {
  readonly rawStream: kinesis.IStream;
  readonly eventsStream: kinesis.IStream;
  readonly transformFunction: lambda.IFunction;
  /** Only an event source mapping emits the function's IteratorAge (PipelineMonitoringProps). */
  readonly invokedByEventSourceMapping: boolean;
  /**
   * The domain whose cluster alarms page (status, blocked writes, JVM, free storage).
   * @default - none: a Serverless collection, whose capacity the service manages
   */
  readonly domain?: opensearch.IDomain;
  /** The events stream's reader: Firehose, or the indexer (`delivery.mode: direct`). */
  readonly delivery: DeliveryTarget;
}

type HandWrittenAlarmOptions = Omit<cloudwatch.CreateAlarmOptions, 'evaluationPeriods' | 'alarmName'> & {
  readonly metric: cloudwatch.IMetric;
  readonly evaluationPeriods?: number;
};

export function createLibraryAlarms(
  ctx: MonitoringContext,
  props: AlarmTargets,
  topic: sns.ITopic,
): cloudwatch.IAlarm[] {
  const t = ctx.thresholds;
  const facade = new MonitoringFacade(ctx.scope, 'Facade', {
    alarmFactoryDefaults: {
      alarmNamePrefix: ctx.namePrefix,
      actionsEnabled: true,
      action: new SnsAlarmActionStrategy({ onAlarmTopic: topic, onOkTopic: topic }),
    },
    // Alarms only: the pipeline dashboard below is built by hand.
    dashboardFactory: new DefaultDashboardFactory(ctx.scope, 'NoDashboards', {
      dashboardNamePrefix: ctx.namePrefix,
      createDashboard: false,
      createSummaryDashboard: false,
      createAlarmDashboard: false,
    }),
  });
  monitorStreams(facade, props, t);
  monitorTransform(facade, props, t);
  if (props.domain !== undefined) monitorDomain(facade, props.domain, t);
  return facade.createdAlarms().map((created) => created.alarm);
}

/** The raw and events streams: their consumers falling behind, and refused writes. */
function monitorStreams(
  facade: MonitoringFacade,
  props: AlarmTargets,
  t: MonitoringContext['thresholds'],
): void {
  const maxAgeInMillis = t.maxIteratorAge.toMilliseconds();
  // The library's defaults are 3 of 3 five-minute periods; the alarms below that must page sooner say so.
  for (const [friendlyName, stream] of [
    ['RawStream', props.rawStream],
    ['EventsStream', props.eventsStream],
  ] as const) {
    facade.monitorKinesisDataStream({
      streamName: stream.streamName,
      alarmFriendlyName: friendlyName,
      addIteratorMaxAgeAlarm: {
        Critical: {
          maxAgeInMillis,
          // Consumers (the event source mapping or Pipes, and Firehose) poll every shard about once a second,
          // idle or not, so this metric never goes quiet while they run: missing data means the consumer
          // stopped, which is the failure this alarm exists for.
          treatMissingDataOverride: cloudwatch.TreatMissingData.BREACHING,
          alarmDescriptionOverride: describe(
            `The ${friendlyName} consumer is falling behind.`,
            'iterator-age',
          ),
        },
      },
      addWriteProvisionedThroughputExceededAlarm: {
        Critical: {
          // The library alarms on the Average of WriteProvisionedThroughputExceeded: > 0 means a put was refused.
          maxRecordsThrottledThreshold: 0,
          evaluationPeriods: t.writeThrottlingPeriods,
          datapointsToAlarm: t.writeThrottlingPeriods,
          alarmDescriptionOverride: describe(
            `Writes to the ${friendlyName} are throttled.`,
            'write-throttling',
          ),
        },
      },
    });
  }
}

/** The transform function: failed invocations, throttles and (event source mappings only) its iterator age. */
function monitorTransform(
  facade: MonitoringFacade,
  props: AlarmTargets,
  t: MonitoringContext['thresholds'],
): void {
  const maxAgeInMillis = t.maxIteratorAge.toMilliseconds();
  facade.monitorLambdaFunction({
    lambdaFunction: props.transformFunction,
    alarmFriendlyName: 'Transform',
    // Errors and Throttles are emitted only when something happened: missing data is "none" (library default).
    addFaultCountAlarm: {
      Critical: {
        maxErrorCount: t.maxTransformErrors,
        // A failed invocation means a whole batch is retried (or bisected): page on the first period.
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
        alarmDescriptionOverride: describe('The transform function failed invocations.', 'transform-errors'),
      },
    },
    addThrottlesCountAlarm: {
      Critical: {
        maxErrorCount: t.maxTransformThrottles,
        alarmDescriptionOverride: describe('The transform function is throttled.', 'transform-throttles'),
      },
    },
    // IteratorAge is emitted by event source mappings only: with a pipe it never exists and an alarm on it could
    // never fire, so the raw stream's alarm above is the one that watches a pipe falling behind.
    ...(props.invokedByEventSourceMapping
      ? {
          addMaxIteratorAgeAlarm: {
            Critical: {
              maxAgeInMillis,
              // IteratorAge exists only while the function is invoked: an idle stream sends none, and the
              // stream-level alarm above already covers a stopped consumer.
              treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
              alarmDescriptionOverride: describe(
                'The transform is falling behind the raw stream.',
                'iterator-age',
              ),
            },
          },
        }
      : {}),
  });
}

function monitorDomain(
  facade: MonitoringFacade,
  domain: opensearch.IDomain,
  t: MonitoringContext['thresholds'],
): void {
  facade.monitorOpenSearchCluster({
    domain,
    alarmFriendlyName: 'Search',
    // The library treats missing OpenSearch data as breaching. Not for the cluster status: OpenSearch Service
    // publishes ClusterStatus.* once a minute but leaves gaps (a new domain, a blue/green change, a version upgrade,
    // CloudWatch's own delays), and a one-period red alarm that breaches on a gap pages people for nothing. A
    // domain that really stops reporting also stops the delivery, which the Firehose freshness alarm catches.
    addClusterStatusAlarm: {
      // Red means a primary shard is unassigned and part of the data cannot be written: page within a minute.
      Red: {
        status: OpenSearchClusterStatus.RED,
        treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
        period: Duration.minutes(1),
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
        alarmDescriptionOverride: describe('OpenSearch cluster status is red.', 'cluster-status-red'),
      },
      ...(t.alarmOnClusterStatusYellow
        ? {
            Yellow: {
              status: OpenSearchClusterStatus.YELLOW,
              treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
              alarmDescriptionOverride: describe(
                'OpenSearch cluster status is yellow.',
                'cluster-status-yellow',
              ),
            },
          }
        : {}),
    },
    addClusterIndexWritesBlockedAlarm: {
      Critical: {
        maxBlockedWrites: 0,
        evaluationPeriods: 1,
        datapointsToAlarm: 1,
        alarmDescriptionOverride: describe('OpenSearch blocks index writes.', 'index-writes-blocked'),
      },
    },
    addJvmMemoryPressureAlarm: {
      Critical: {
        maxUsagePercent: t.maxJvmMemoryPressurePercent,
        alarmDescriptionOverride: describe('OpenSearch JVM memory pressure is high.', 'jvm-memory-pressure'),
      },
    },
  });
}

export function createHandWrittenAlarms(ctx: MonitoringContext, props: AlarmTargets): cloudwatch.Alarm[] {
  const t = ctx.thresholds;
  const alarm = (name: string, options: HandWrittenAlarmOptions): cloudwatch.Alarm =>
    handWrittenAlarm(ctx, name, options);
  return [
    alarm('PoisonRecords', {
      metric: ctx.emfMetric(MetricName.PoisonRecords),
      threshold: t.maxPoisonRecords,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: describe(
        'The transform met records it cannot decode; they are in the dead-letter bucket with their reason.',
        'poison-records',
      ),
    }),
    ...createDeliveryAlarms(ctx, props.delivery, alarm),
    ...(props.domain === undefined ? [] : [freeStorageAlarm(ctx, props.domain, alarm)]),
  ];
}

/** The fullest data node's free storage (a domain only). */
function freeStorageAlarm(
  ctx: MonitoringContext,
  domain: opensearch.IDomain,
  alarm: (name: string, options: HandWrittenAlarmOptions) => cloudwatch.Alarm,
): cloudwatch.Alarm {
  return alarm('FreeStorageSpace', {
    // Minimum over the domain's ClientId/DomainName dimensions is the fullest data node.
    metric: domain.metricFreeStorageSpace({ statistic: cloudwatch.Stats.MINIMUM, period: FIVE_MINUTES }),
    threshold: ctx.thresholds.minFreeStorageSpaceInMiB,
    comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD,
    // No data means the domain stopped reporting; the cluster-status alarms (missing = breaching) cover
    // that, so this one keeps its last state instead of paging twice.
    treatMissingData: cloudwatch.TreatMissingData.MISSING,
    alarmDescription: describe('A data node is running out of disk space.', 'free-storage-space'),
  });
}

function handWrittenAlarm(
  ctx: MonitoringContext,
  name: string,
  props: HandWrittenAlarmOptions,
): cloudwatch.Alarm {
  const { metric, evaluationPeriods, ...options } = props;
  return new cloudwatch.Alarm(ctx.scope, `${name}Alarm`, {
    ...options,
    metric,
    evaluationPeriods: evaluationPeriods ?? 1,
    alarmName: `${ctx.namePrefix}-${name}`,
  });
}
