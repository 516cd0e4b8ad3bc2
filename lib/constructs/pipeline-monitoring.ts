import { Annotations, ArnFormat, Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import {
  DefaultDashboardFactory,
  MonitoringFacade,
  OpenSearchClusterStatus,
  SnsAlarmActionStrategy,
} from 'cdk-monitoring-constructs';
import { Construct } from 'constructs';
import { MetricName } from '../../core/contracts/metrics';
import { DEFAULT_METRICS_NAMESPACE, TransformServiceName } from '../../core/contracts/transform-env';
import {
  SAVED_QUERIES,
  SAVED_QUERY_FOLDER,
  savedQueryDefinitionName,
} from '../../core/contracts/saved-queries';

/**
 * When each alarm fires. Every field is optional; {@link DEFAULT_ALARM_THRESHOLDS} holds the defaults, and
 * docs/operations.md says what to do when each alarm fires.
 */
export interface PipelineAlarmThresholds {
  /**
   * Oldest unread record in either stream (`GetRecords.IteratorAgeMilliseconds`, Maximum) and in the transform's
   * batches (Lambda `IteratorAge`): above this the pipeline is falling behind.
   * @default 300 (5 minutes)
   */
  readonly maxIteratorAgeInSeconds?: number;
  /**
   * Consecutive 5-minute periods with write throttling (`WriteProvisionedThroughputExceeded` > 0) on a stream
   * before the alarm fires. Writers retry throttled puts, so a short burst is normal; a sustained one means
   * too few shards.
   * @default 3
   */
  readonly writeThrottlingPeriods?: number;
  /**
   * Transform `Errors` (failed invocations) per 5 minutes above which the alarm fires.
   * @default 0 (any failed invocation)
   */
  readonly maxTransformErrors?: number;
  /**
   * Transform `Throttles` per 5 minutes above which the alarm fires.
   * @default 0
   */
  readonly maxTransformThrottles?: number;
  /**
   * Poison records (EMF `PoisonRecords`) per 5 minutes above which the alarm fires.
   * @default 0 (any poison record: each one is a record that reached the dead-letter place instead of OpenSearch)
   */
  readonly maxPoisonRecords?: number;
  /**
   * Firehose `DeliveryToAmazonOpenSearchService.Success` (the share of indexed records, Average) below which the
   * alarm fires.
   * @default 1 (any document that OpenSearch refused)
   */
  readonly minDeliverySuccessRatio?: number;
  /**
   * Firehose `DeliveryToAmazonOpenSearchService.DataFreshness` (age of the oldest undelivered record, Maximum).
   * Must exceed the Firehose buffering interval.
   * @default 900 (15 minutes)
   */
  readonly maxDeliveryDataFreshnessInSeconds?: number;
  /**
   * Failed documents Firehose wrote to S3 (`DeliveryToS3.Records`, Sum) per 5 minutes above which the alarm fires.
   * @default 0
   */
  readonly maxFailedDocuments?: number;
  /**
   * Free storage of the fullest data node (`FreeStorageSpace`, Minimum) at or below which the alarm fires.
   * @default - 25% of `dataNodeVolumeSizeInGiB` when given (AWS's guidance), else 20480 MiB
   */
  readonly minFreeStorageSpaceInMiB?: number;
  /**
   * `JVMMemoryPressure` (Maximum) above which the alarm fires (3 consecutive 5-minute periods).
   * @default 80
   */
  readonly maxJvmMemoryPressurePercent?: number;
  /**
   * Also alarm on `ClusterStatus.yellow` (unassigned replica shards). Turn off only for a one-node domain whose
   * index template still asks for replicas.
   * @default true
   */
  readonly alarmOnClusterStatusYellow?: boolean;
}

/** The defaults of {@link PipelineAlarmThresholds}, applied once in the constructor. */
export const DEFAULT_ALARM_THRESHOLDS = {
  maxIteratorAgeInSeconds: 300,
  writeThrottlingPeriods: 3,
  maxTransformErrors: 0,
  maxTransformThrottles: 0,
  maxPoisonRecords: 0,
  maxFailedDocuments: 0,
  minDeliverySuccessRatio: 1,
  maxDeliveryDataFreshnessInSeconds: 900,
  maxJvmMemoryPressurePercent: 80,
  alarmOnClusterStatusYellow: true,
} as const;

/** AWS's fixed fallback when the volume size is unknown: 20 GiB. */
export const DEFAULT_MIN_FREE_STORAGE_SPACE_IN_MIB = 20_480;

/**
 * Metric names the transform publishes in embedded metric format (EMF); owned by core/contracts/metrics.ts.
 * Powertools Metrics adds one dimension, `service`, set from `serviceName`.
 */
export const TRANSFORM_METRIC_NAMES = MetricName;

export interface PipelineMonitoringProps {
  /** The stream CloudWatch Logs subscriptions write to. */
  readonly rawStream: kinesis.IStream;
  /** The stream of documents Firehose reads. */
  readonly eventsStream: kinesis.IStream;
  /** The transform Lambda (event source mapping on the raw stream). */
  readonly transformFunction: lambda.IFunction;
  /** Name of the Firehose delivery stream (`CfnDeliveryStream.ref`). */
  readonly deliveryStreamName: string;
  readonly domain: opensearch.IDomain;
  /**
   * Log groups the saved Logs Insights queries cover (the subscribed ones). At most 50, the StartQuery limit.
   * @default - no log groups: the queries are saved without a selection and the console asks for one
   */
  readonly sourceLogGroupNames?: readonly string[];
  /**
   * E-mail address subscribed to the alarm topic (the recipient must confirm the subscription).
   * @default - no subscription
   */
  readonly alarmEmail?: string;
  /** @default - see {@link DEFAULT_ALARM_THRESHOLDS} */
  readonly thresholds?: PipelineAlarmThresholds;
  /**
   * EBS volume size of one data node, used for the default free-storage threshold (25% of it).
   * @default - unknown: the threshold falls back to 20480 MiB unless `thresholds.minFreeStorageSpaceInMiB` is set
   */
  readonly dataNodeVolumeSizeInGiB?: number;
  /**
   * CloudWatch namespace of the transform's EMF metrics (`POWERTOOLS_METRICS_NAMESPACE`).
   * @default 'kfek'
   */
  readonly metricsNamespace?: string;
  /**
   * The transform's Powertools service name (`POWERTOOLS_SERVICE_NAME`): the `service` dimension of its metrics.
   * @default 'transform'
   */
  readonly transformServiceName?: string;
  /**
   * Prefix of alarm names, the dashboard name and the saved-query folder.
   * @default 'kfek'
   */
  readonly namePrefix?: string;
}

/** Resolved thresholds: every field set. */
type ResolvedThresholds = Required<PipelineAlarmThresholds>;

const FIVE_MINUTES = Duration.minutes(5);
/** StartQuery and the console accept at most 50 log groups per query. */
const MAX_QUERY_LOG_GROUPS = 50;

/**
 * Alarms, a dashboard and saved Logs Insights queries for the whole pipeline, with one encrypted SNS topic for
 * every alarm and OK notification.
 *
 * Kinesis, Lambda and OpenSearch alarms come from cdk-monitoring-constructs, whose factories encode the usual
 * statistics and missing-data choices. Its Firehose monitoring covers Direct PUT and format conversion only, so
 * the delivery alarms, the EMF poison-record alarm and the per-node free-storage alarm (the library offers a
 * cluster-wide percentage) are plain `cloudwatch.Alarm`s. The dashboard is hand-built in data-flow order rather
 * than the library's per-service layout.
 */
export class PipelineMonitoring extends Construct {
  readonly alarmTopic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;
  /** Every alarm created, library and hand-written. */
  readonly alarms: readonly cloudwatch.IAlarm[];
  readonly queryDefinitions: readonly logs.QueryDefinition[];

  private readonly thresholds: ResolvedThresholds;
  private readonly namePrefix: string;
  private readonly emfDimensions: cloudwatch.DimensionsMap;
  private readonly metricsNamespace: string;

  constructor(scope: Construct, id: string, props: PipelineMonitoringProps) {
    super(scope, id);
    this.namePrefix = props.namePrefix ?? 'kfek';
    this.metricsNamespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
    this.emfDimensions = { service: props.transformServiceName ?? TransformServiceName.kinesis };
    this.thresholds = resolveThresholds(props);
    validate(this, props, this.thresholds);

    this.alarmTopic = this.createTopic(props.alarmEmail);
    const action = new cloudwatchActions.SnsAction(this.alarmTopic);

    const libraryAlarms = this.createLibraryAlarms(props);
    const handWritten = this.createHandWrittenAlarms(props);
    for (const alarm of handWritten) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
    this.alarms = [...libraryAlarms, ...handWritten];

    this.dashboard = this.createDashboard(props, this.alarms);
    this.queryDefinitions = this.createQueryDefinitions(props.sourceLogGroupNames ?? []);
  }

  private createTopic(email: string | undefined): sns.Topic {
    // CloudWatch cannot publish to a topic encrypted with the AWS managed key (aws/sns): its key policy cannot
    // grant cloudwatch.amazonaws.com. A customer managed key with that grant is required
    // (https://repost.aws/knowledge-center/cloudwatch-receive-sns-for-alarm-trigger).
    const key = new kms.Key(this, 'AlarmTopicKey', {
      description: `${this.namePrefix} alarm topic encryption`,
      enableKeyRotation: true,
      // SNS keeps no messages at rest beyond delivery, so nothing stays encrypted under this key after the stack
      // is gone; retaining it would only cost $1 a month.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    key.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    const topic = new sns.Topic(this, 'AlarmTopic', {
      displayName: `${this.namePrefix} pipeline alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    // A topic policy replaces SNS's default one, and enforceSSL above creates one holding only the TLS deny: without
    // this statement CloudWatch may not publish, and no alarm ever notifies anyone. Scoped to this account's alarms
    // (confused deputy: aws:SourceAccount and aws:SourceArn are set by CloudWatch on alarm actions).
    // https://docs.aws.amazon.com/sns/latest/dg/sns-access-policy-use-cases.html#source-account-versus-source-owner
    const stack = Stack.of(this);
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    if (email !== undefined) topic.addSubscription(new subscriptions.EmailSubscription(email));
    return topic;
  }

  private createLibraryAlarms(props: PipelineMonitoringProps): cloudwatch.IAlarm[] {
    const t = this.thresholds;
    const facade = new MonitoringFacade(this, 'Facade', {
      alarmFactoryDefaults: {
        alarmNamePrefix: this.namePrefix,
        actionsEnabled: true,
        action: new SnsAlarmActionStrategy({ onAlarmTopic: this.alarmTopic, onOkTopic: this.alarmTopic }),
      },
      // Alarms only: the pipeline dashboard below is built by hand.
      dashboardFactory: new DefaultDashboardFactory(this, 'NoDashboards', {
        dashboardNamePrefix: this.namePrefix,
        createDashboard: false,
        createSummaryDashboard: false,
        createAlarmDashboard: false,
      }),
    });
    const maxAgeInMillis = t.maxIteratorAgeInSeconds * 1000;
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
          alarmDescriptionOverride: describe(
            'The transform function failed invocations.',
            'transform-errors',
          ),
        },
      },
      addThrottlesCountAlarm: {
        Critical: {
          maxErrorCount: t.maxTransformThrottles,
          alarmDescriptionOverride: describe('The transform function is throttled.', 'transform-throttles'),
        },
      },
      addMaxIteratorAgeAlarm: {
        Critical: {
          maxAgeInMillis,
          // IteratorAge exists only while the function is invoked: an idle stream (or the Pipes transport) sends
          // none, and the stream-level alarm above already covers a stopped consumer.
          treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
          alarmDescriptionOverride: describe(
            'The transform is falling behind the raw stream.',
            'iterator-age',
          ),
        },
      },
    });
    facade.monitorOpenSearchCluster({
      domain: props.domain,
      alarmFriendlyName: 'Search',
      // The library treats missing OpenSearch data as breaching: a domain that stops reporting is down.
      addClusterStatusAlarm: {
        // Red means a primary shard is unassigned and part of the data cannot be written: page within a minute.
        Red: {
          status: OpenSearchClusterStatus.RED,
          period: Duration.minutes(1),
          evaluationPeriods: 1,
          datapointsToAlarm: 1,
          alarmDescriptionOverride: describe('OpenSearch cluster status is red.', 'cluster-status-red'),
        },
        ...(t.alarmOnClusterStatusYellow
          ? {
              Yellow: {
                status: OpenSearchClusterStatus.YELLOW,
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
          alarmDescriptionOverride: describe(
            'OpenSearch JVM memory pressure is high.',
            'jvm-memory-pressure',
          ),
        },
      },
    });
    return facade.createdAlarms().map((created) => created.alarm);
  }

  private createHandWrittenAlarms(props: PipelineMonitoringProps): cloudwatch.Alarm[] {
    const t = this.thresholds;
    const firehose = (metricName: string, statistic: string): cloudwatch.Metric =>
      new cloudwatch.Metric({
        namespace: 'AWS/Firehose',
        metricName,
        dimensionsMap: { DeliveryStreamName: props.deliveryStreamName },
        statistic,
        period: FIVE_MINUTES,
      });
    return [
      this.alarm('PoisonRecords', {
        metric: this.emfMetric(TRANSFORM_METRIC_NAMES.PoisonRecords),
        threshold: t.maxPoisonRecords,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: describe(
          'The transform met records it cannot decode; they are in the dead-letter bucket with their reason.',
          'poison-records',
        ),
      }),
      this.alarm('DeliverySuccess', {
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
      this.alarm('DeliveryDataFreshness', {
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
      this.alarm('FailedDocuments', {
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
      this.alarm('FreeStorageSpace', {
        // Minimum over the domain's ClientId/DomainName dimensions is the fullest data node.
        metric: props.domain.metricFreeStorageSpace({
          statistic: cloudwatch.Stats.MINIMUM,
          period: FIVE_MINUTES,
        }),
        threshold: t.minFreeStorageSpaceInMiB,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD,
        // No data means the domain stopped reporting; the cluster-status alarms (missing = breaching) cover
        // that, so this one keeps its last state instead of paging twice.
        treatMissingData: cloudwatch.TreatMissingData.MISSING,
        alarmDescription: describe('A data node is running out of disk space.', 'free-storage-space'),
      }),
    ];
  }

  private alarm(
    name: string,
    props: Omit<cloudwatch.CreateAlarmOptions, 'evaluationPeriods' | 'alarmName'> & {
      readonly metric: cloudwatch.IMetric;
      readonly evaluationPeriods?: number;
    },
  ): cloudwatch.Alarm {
    const { metric, evaluationPeriods, ...options } = props;
    return new cloudwatch.Alarm(this, `${name}Alarm`, {
      ...options,
      metric,
      evaluationPeriods: evaluationPeriods ?? 1,
      alarmName: `${this.namePrefix}-${name}`,
    });
  }

  private emfMetric(metricName: string): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.metricsNamespace,
      metricName,
      dimensionsMap: this.emfDimensions,
      statistic: cloudwatch.Stats.SUM,
      period: FIVE_MINUTES,
    });
  }

  private createDashboard(
    props: PipelineMonitoringProps,
    alarms: readonly cloudwatch.IAlarm[],
  ): cloudwatch.Dashboard {
    const { rawStream, eventsStream, transformFunction: fn, domain } = props;
    const t = this.thresholds;
    const sum = { statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES };
    const max = { statistic: cloudwatch.Stats.MAXIMUM, period: FIVE_MINUTES };
    const firehose = (metricName: string, label: string, statistic: string): cloudwatch.Metric =>
      new cloudwatch.Metric({
        namespace: 'AWS/Firehose',
        metricName,
        label,
        dimensionsMap: { DeliveryStreamName: props.deliveryStreamName },
        statistic,
        period: FIVE_MINUTES,
      });
    const iteratorAgeLine: cloudwatch.HorizontalAnnotation = {
      value: t.maxIteratorAgeInSeconds * 1000,
      label: 'alarm',
    };
    const graph = (
      title: string,
      left: cloudwatch.IMetric[],
      extra: Partial<cloudwatch.GraphWidgetProps> = {},
    ): cloudwatch.GraphWidget => new cloudwatch.GraphWidget({ title, left, width: 8, height: 6, ...extra });

    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `${this.namePrefix}-pipeline`,
      defaultInterval: Duration.hours(3),
    });
    dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown:
          `# ${this.namePrefix} pipeline\n` +
          'CloudWatch Logs → raw stream → transform Lambda → events stream → Firehose → OpenSearch ' +
          '(failed documents → S3). Rows follow the data; see docs/operations.md for what each alarm means.',
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(
      graph('Records in (raw stream)', [
        rawStream.metricIncomingRecords({ ...sum, label: 'raw IncomingRecords' }),
      ]),
      graph(
        'Transform: records in / events out (EMF)',
        [
          this.emfMetric(TRANSFORM_METRIC_NAMES.RecordsIn).with({ label: 'RecordsIn' }),
          this.emfMetric(TRANSFORM_METRIC_NAMES.EventsOut).with({ label: 'EventsOut' }),
          this.emfMetric(TRANSFORM_METRIC_NAMES.PoisonRecords).with({ label: 'PoisonRecords' }),
        ],
        {
          // The ratio of sums, not the average of per-invocation ratios: it is what Kinesis and Firehose bill.
          // About 1 without aggregation (or with the Pipes transport); in the hundreds with it.
          right: [
            new cloudwatch.MathExpression({
              expression: 'IF(recordsOut > 0, eventsOut / recordsOut)',
              usingMetrics: {
                eventsOut: this.emfMetric(TRANSFORM_METRIC_NAMES.EventsOut),
                recordsOut: this.emfMetric(TRANSFORM_METRIC_NAMES.RecordsOut),
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
          rawStream.metricGetRecordsIteratorAgeMilliseconds({ ...max, label: 'raw stream' }),
          fn.metric('IteratorAge', { ...max, label: 'transform IteratorAge' }),
          eventsStream.metricGetRecordsIteratorAgeMilliseconds({ ...max, label: 'events stream' }),
        ],
        { leftAnnotations: [iteratorAgeLine] },
      ),
    );
    dashboard.addWidgets(
      graph('Transform duration (ms)', [
        fn.metricDuration({ statistic: cloudwatch.Stats.p(50), period: FIVE_MINUTES, label: 'p50' }),
        fn.metricDuration({ statistic: cloudwatch.Stats.p(95), period: FIVE_MINUTES, label: 'p95' }),
        fn.metricDuration({ ...max, label: 'max' }),
      ]),
      graph('Transform concurrency', [
        fn.metric('ConcurrentExecutions', { ...max, label: 'ConcurrentExecutions' }),
      ]),
      graph('Transform errors and throttles', [
        fn.metricErrors({ ...sum, label: 'Errors' }),
        fn.metricThrottles({ ...sum, label: 'Throttles' }),
      ]),
    );
    dashboard.addWidgets(
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
      graph('Stream write throttling', [
        rawStream.metricWriteProvisionedThroughputExceeded({ ...max, label: 'raw stream' }),
        eventsStream.metricWriteProvisionedThroughputExceeded({ ...max, label: 'events stream' }),
      ]),
    );
    dashboard.addWidgets(
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
          leftAnnotations: [{ value: t.minFreeStorageSpaceInMiB, label: 'alarm' }],
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
    );
    dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...alarms], width: 24, height: 4 }),
    );
    return dashboard;
  }

  private createQueryDefinitions(logGroupNames: readonly string[]): logs.QueryDefinition[] {
    const logGroups = logGroupNames.map((name, index) =>
      logs.LogGroup.fromLogGroupName(this, `QueryLogGroup${index}`, name),
    );
    const folder = this.namePrefix === 'kfek' ? SAVED_QUERY_FOLDER : this.namePrefix;
    return SAVED_QUERIES.map(
      (query) =>
        new logs.QueryDefinition(this, `Query-${query.name}`, {
          queryDefinitionName: savedQueryDefinitionName(query, folder),
          queryString: new logs.QueryString({
            fields: query.parts.fields === undefined ? undefined : [...query.parts.fields],
            filterStatements:
              query.parts.filterStatements === undefined ? undefined : [...query.parts.filterStatements],
            statsStatements:
              query.parts.statsStatements === undefined ? undefined : [...query.parts.statsStatements],
            sort: query.parts.sort,
            limit: query.parts.limit,
          }),
          logGroups: logGroups.length > 0 ? logGroups : undefined,
        }),
    );
  }
}

/** An alarm description that says where the runbook is: operators read it in the notification e-mail. */
function describe(what: string, anchor: string): string {
  return `${what} What to do: docs/operations.md#${anchor}`;
}

function resolveThresholds(props: PipelineMonitoringProps): ResolvedThresholds {
  const given = props.thresholds ?? {};
  const volume = props.dataNodeVolumeSizeInGiB;
  return {
    maxIteratorAgeInSeconds:
      given.maxIteratorAgeInSeconds ?? DEFAULT_ALARM_THRESHOLDS.maxIteratorAgeInSeconds,
    writeThrottlingPeriods: given.writeThrottlingPeriods ?? DEFAULT_ALARM_THRESHOLDS.writeThrottlingPeriods,
    maxTransformErrors: given.maxTransformErrors ?? DEFAULT_ALARM_THRESHOLDS.maxTransformErrors,
    maxTransformThrottles: given.maxTransformThrottles ?? DEFAULT_ALARM_THRESHOLDS.maxTransformThrottles,
    maxPoisonRecords: given.maxPoisonRecords ?? DEFAULT_ALARM_THRESHOLDS.maxPoisonRecords,
    maxFailedDocuments: given.maxFailedDocuments ?? DEFAULT_ALARM_THRESHOLDS.maxFailedDocuments,
    minDeliverySuccessRatio:
      given.minDeliverySuccessRatio ?? DEFAULT_ALARM_THRESHOLDS.minDeliverySuccessRatio,
    maxDeliveryDataFreshnessInSeconds:
      given.maxDeliveryDataFreshnessInSeconds ?? DEFAULT_ALARM_THRESHOLDS.maxDeliveryDataFreshnessInSeconds,
    minFreeStorageSpaceInMiB:
      given.minFreeStorageSpaceInMiB ??
      (volume !== undefined && !Token.isUnresolved(volume)
        ? Math.floor(volume * 1024 * 0.25)
        : DEFAULT_MIN_FREE_STORAGE_SPACE_IN_MIB),
    maxJvmMemoryPressurePercent:
      given.maxJvmMemoryPressurePercent ?? DEFAULT_ALARM_THRESHOLDS.maxJvmMemoryPressurePercent,
    alarmOnClusterStatusYellow:
      given.alarmOnClusterStatusYellow ?? DEFAULT_ALARM_THRESHOLDS.alarmOnClusterStatusYellow,
  };
}

/** Throws on values that would make a broken or silent alarm; warns on ones that are merely odd. */
function validate(scope: Construct, props: PipelineMonitoringProps, t: ResolvedThresholds): void {
  const check = (name: keyof PipelineAlarmThresholds, value: number, ok: boolean, expected: string): void => {
    if (Token.isUnresolved(value)) return;
    if (!Number.isFinite(value) || !ok) {
      throw new Error(
        `alarms.${name} is ${value}; expected ${expected}. Fix it in the alarms section of the config.`,
      );
    }
  };
  check(
    'maxIteratorAgeInSeconds',
    t.maxIteratorAgeInSeconds,
    t.maxIteratorAgeInSeconds >= 1,
    'a number of seconds >= 1',
  );
  check(
    'writeThrottlingPeriods',
    t.writeThrottlingPeriods,
    Number.isInteger(t.writeThrottlingPeriods) &&
      t.writeThrottlingPeriods >= 1 &&
      t.writeThrottlingPeriods <= 288,
    'a whole number of 5-minute periods from 1 to 288 (one day)',
  );
  for (const name of [
    'maxTransformErrors',
    'maxTransformThrottles',
    'maxPoisonRecords',
    'maxFailedDocuments',
  ] as const) {
    check(name, t[name], t[name] >= 0, 'a count >= 0 (0 alarms on the first one)');
  }
  check(
    'minDeliverySuccessRatio',
    t.minDeliverySuccessRatio,
    t.minDeliverySuccessRatio > 0 && t.minDeliverySuccessRatio <= 1,
    'a ratio in (0, 1], e.g. 1 for "every document indexed"',
  );
  check(
    'maxDeliveryDataFreshnessInSeconds',
    t.maxDeliveryDataFreshnessInSeconds,
    t.maxDeliveryDataFreshnessInSeconds >= 60,
    'a number of seconds >= 60 that exceeds the Firehose buffering interval',
  );
  check(
    'maxJvmMemoryPressurePercent',
    t.maxJvmMemoryPressurePercent,
    t.maxJvmMemoryPressurePercent > 0 && t.maxJvmMemoryPressurePercent <= 100,
    'a percentage in (0, 100]',
  );
  check(
    'minFreeStorageSpaceInMiB',
    t.minFreeStorageSpaceInMiB,
    t.minFreeStorageSpaceInMiB > 0,
    'a number of MiB > 0',
  );
  const volume = props.dataNodeVolumeSizeInGiB;
  if (volume !== undefined && !Token.isUnresolved(volume) && t.minFreeStorageSpaceInMiB >= volume * 1024) {
    throw new Error(
      `alarms.minFreeStorageSpaceInMiB is ${t.minFreeStorageSpaceInMiB} MiB but a data node has only ${volume} GiB ` +
        `(${volume * 1024} MiB): the alarm would always fire. Use about 25% of the volume (${Math.floor(volume * 256)}).`,
    );
  }
  if (
    props.alarmEmail !== undefined &&
    !Token.isUnresolved(props.alarmEmail) &&
    !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(props.alarmEmail)
  ) {
    throw new Error(
      `alarms.email is ${JSON.stringify(props.alarmEmail)}; expected an e-mail address such as ops@example.com.`,
    );
  }
  const groups = props.sourceLogGroupNames ?? [];
  if (groups.length > MAX_QUERY_LOG_GROUPS) {
    throw new Error(
      `The saved queries can cover at most ${MAX_QUERY_LOG_GROUPS} log groups (StartQuery limit); got ${groups.length}. ` +
        'Pass the most important ones, or none to pick them in the console.',
    );
  }
  if (groups.length === 0) {
    Annotations.of(scope).addWarningV2(
      'kfek:monitoring:queriesWithoutLogGroups',
      'No source log groups given: the saved Logs Insights queries are saved without a log group selection.',
    );
  }
}
