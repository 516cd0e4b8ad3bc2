import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { DEFAULT_METRICS_NAMESPACE, TransformServiceName } from '../../core/contracts/transform-env';
import { withDefaults } from '../defaults';
import { createAlarmTopic } from './monitoring/alarm-topic';
import { createHandWrittenAlarms, createLibraryAlarms } from './monitoring/alarms';
import { monitoringContext } from './monitoring/context';
import { createDashboard } from './monitoring/dashboard';
import { createQueryDefinitions } from './monitoring/queries';
import { createReconcileAlarms, reconcileWidgets } from './monitoring/reconcile';
import { createRetentionAlarms, retentionWidgets } from './monitoring/retention';
import {
  type PipelineAlarmThresholds,
  resolveThresholds,
  validateMonitoringProps,
} from './monitoring/thresholds';

export {
  DEFAULT_ALARM_THRESHOLDS,
  DEFAULT_MIN_FREE_STORAGE_SPACE_IN_MIB,
  type PipelineAlarmThresholds,
} from './monitoring/thresholds';

export interface PipelineMonitoringProps {
  /** The stream CloudWatch Logs subscriptions write to. */
  readonly rawStream: kinesis.IStream;
  /** The stream of documents Firehose reads. */
  readonly eventsStream: kinesis.IStream;
  /** The transform Lambda (event source mapping handler or Pipes enrichment). */
  readonly transformFunction: lambda.IFunction;
  /**
   * Whether an event source mapping invokes the transform (transport `lambda`). Only event source mappings emit
   * the function's `IteratorAge`; with a pipe the metric never exists, so its alarm and graph are left out (the
   * raw stream's `GetRecords.IteratorAgeMilliseconds` alarm covers a pipe falling behind).
   * @default true
   */
  readonly invokedByEventSourceMapping?: boolean;
  /** Name of the Firehose delivery stream (`CfnDeliveryStream.ref`). */
  readonly deliveryStreamName: string;
  /**
   * The indexer function of `delivery.mode: direct`: the delivery alarms and graphs then watch it (its EMF metrics
   * and Lambda `IteratorAge`) instead of the delivery stream.
   * @default - none: Firehose delivers
   */
  readonly indexerFunction?: lambda.IFunction;
  /** The domain's cluster alarms and graphs. @default - none: a Serverless collection (the service manages it) */
  readonly domain?: opensearch.IDomain;
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
   * @default 'kfek' (DEFAULT_METRICS_NAMESPACE)
   */
  readonly metricsNamespace?: string;
  /**
   * The transform's Powertools service name (`POWERTOOLS_SERVICE_NAME`): the `service` dimension of its metrics.
   * @default 'transform' (TransformServiceName.kinesis)
   */
  readonly transformServiceName?: string;
  /**
   * The scheduled reconcile function (config `reconcile.enabled`), by its fixed name, and how often it runs: adds the
   * `MissingEvents` and `ReconcileErrors` alarms and a dashboard row.
   * @default - none
   */
  readonly reconcile?: { readonly functionName: string; readonly every: Duration };
  /**
   * A serverless profile's retention function, by its fixed name, and how often it runs: adds the
   * `RetentionFailures`, `RetentionErrors` and `RetentionNotRunning` alarms and a dashboard row.
   * @default - none
   */
  readonly retention?: { readonly functionName: string; readonly every: Duration };
  /**
   * Prefix of alarm names, the dashboard name and the saved-query folder.
   * @default 'kfek'
   */
  readonly namePrefix?: string;
}

const DEFAULTS = {
  namePrefix: 'kfek',
  metricsNamespace: DEFAULT_METRICS_NAMESPACE,
  transformServiceName: TransformServiceName.kinesis,
  sourceLogGroupNames: [],
  invokedByEventSourceMapping: true,
};

/**
 * Alarms, a dashboard and saved Logs Insights queries for the whole pipeline, with one encrypted SNS topic for
 * every alarm and OK notification. The parts live in monitoring/: the topic (alarm-topic.ts), the library and
 * hand-written alarms (alarms.ts), the dashboard (dashboard.ts), the queries (queries.ts) and the thresholds with
 * their validation (thresholds.ts). They create their constructs in this one, so construct IDs stay as they were.
 */
export class PipelineMonitoring extends Construct {
  readonly alarmTopic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;
  /** Every alarm created, library and hand-written. */
  readonly alarms: readonly cloudwatch.IAlarm[];
  readonly queryDefinitions: readonly logs.QueryDefinition[];

  constructor(scope: Construct, id: string, props: PipelineMonitoringProps) {
    super(scope, id);
    const p = withDefaults(DEFAULTS, props);
    const thresholds = resolveThresholds(p);
    validateMonitoringProps(this, p, thresholds);
    const ctx = monitoringContext({
      scope: this,
      namePrefix: p.namePrefix,
      thresholds,
      metricsNamespace: p.metricsNamespace,
      transformServiceName: p.transformServiceName,
      deliveryStreamName: p.deliveryStreamName,
    });

    this.alarmTopic = createAlarmTopic(this, p.namePrefix, p.alarmEmail);
    const action = new cloudwatchActions.SnsAction(this.alarmTopic);

    const targets = {
      ...p,
      delivery:
        p.indexerFunction === undefined
          ? ({ mode: 'firehose' } as const)
          : ({ mode: 'direct', indexerFunction: p.indexerFunction } as const),
    };
    const libraryAlarms = createLibraryAlarms(ctx, targets, this.alarmTopic);
    const reconcile =
      p.reconcile === undefined ? undefined : { ...p.reconcile, metricsNamespace: p.metricsNamespace };
    const retention =
      p.retention === undefined ? undefined : { ...p.retention, metricsNamespace: p.metricsNamespace };
    const handWritten = [
      ...createHandWrittenAlarms(ctx, targets),
      ...(reconcile === undefined ? [] : createReconcileAlarms(ctx, reconcile)),
      ...(retention === undefined ? [] : createRetentionAlarms(ctx, retention)),
    ];
    for (const alarm of handWritten) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
    this.alarms = [...libraryAlarms, ...handWritten];

    this.dashboard = createDashboard(ctx, targets, this.alarms, [
      ...(reconcile === undefined ? [] : [reconcileWidgets(reconcile)]),
      ...(retention === undefined ? [] : [retentionWidgets(retention)]),
    ]);
    this.queryDefinitions = createQueryDefinitions(this, p.namePrefix, p.sourceLogGroupNames);
  }
}
