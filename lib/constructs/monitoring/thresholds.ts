import { Annotations, Duration, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { withDefaults } from '../../defaults';

/**
 * When each alarm fires. Every field is optional; {@link DEFAULT_ALARM_THRESHOLDS} holds the defaults, and
 * docs/operations.md says what to do when each alarm fires.
 */
export interface PipelineAlarmThresholds {
  /**
   * Oldest unread record in either stream (`GetRecords.IteratorAgeMilliseconds`, Maximum) and in the transform's
   * batches (Lambda `IteratorAge`): above this the pipeline is falling behind.
   * @default Duration.minutes(5)
   */
  readonly maxIteratorAge?: Duration;
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
  maxIteratorAge: Duration.minutes(5),
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

/** StartQuery and the console accept at most 50 log groups per query. */
export const MAX_QUERY_LOG_GROUPS = 50;

/** Resolved thresholds: every field set. */
export type ResolvedThresholds = Required<PipelineAlarmThresholds>;

/** What the thresholds are resolved and validated against. */
export interface ThresholdInputs {
  readonly thresholds?: PipelineAlarmThresholds;
  readonly dataNodeVolumeSizeInGiB?: number;
  readonly alarmEmail?: string;
  readonly sourceLogGroupNames?: readonly string[];
}

/** Applies the defaults; the free-storage default follows the volume size. */
export function resolveThresholds(props: ThresholdInputs): ResolvedThresholds {
  const volume = props.dataNodeVolumeSizeInGiB;
  const freeStorageDefault =
    volume !== undefined && !Token.isUnresolved(volume)
      ? Math.floor(volume * 1024 * 0.25)
      : DEFAULT_MIN_FREE_STORAGE_SPACE_IN_MIB;
  return withDefaults(
    { ...DEFAULT_ALARM_THRESHOLDS, minFreeStorageSpaceInMiB: freeStorageDefault },
    props.thresholds ?? {},
  );
}

/**
 * Throws on values that would make a broken or silent alarm; warns on ones that are merely odd. Messages name the
 * construct's props (`thresholds.*`): lib/app.ts maps the config's `alarms` section onto them, and the config
 * reader (core/config/resolve.ts) checks those keys with messages of its own.
 */
export function validateMonitoringProps(
  scope: Construct,
  props: ThresholdInputs,
  t: ResolvedThresholds,
): void {
  const where = `PipelineMonitoring ${scope.node.path}`;
  validateThresholds(where, t);
  const volume = props.dataNodeVolumeSizeInGiB;
  if (volume !== undefined && !Token.isUnresolved(volume) && t.minFreeStorageSpaceInMiB >= volume * 1024) {
    throw new Error(
      `${where}: thresholds.minFreeStorageSpaceInMiB is ${t.minFreeStorageSpaceInMiB} MiB but a data node has only ` +
        `${volume} GiB (${volume * 1024} MiB): the alarm would always fire. Use about 25% of the volume ` +
        `(${Math.floor(volume * 256)}).`,
    );
  }
  if (
    props.alarmEmail !== undefined &&
    !Token.isUnresolved(props.alarmEmail) &&
    !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(props.alarmEmail)
  ) {
    throw new Error(
      `${where}: alarmEmail is ${JSON.stringify(props.alarmEmail)}; expected an e-mail address such as ` +
        'ops@example.com.',
    );
  }
  const groups = props.sourceLogGroupNames ?? [];
  if (groups.length > MAX_QUERY_LOG_GROUPS) {
    throw new Error(
      `${where}: the saved queries can cover at most ${MAX_QUERY_LOG_GROUPS} log groups (StartQuery limit); got ` +
        `${groups.length}. Pass the most important ones, or none to pick them in the console.`,
    );
  }
  if (groups.length === 0) {
    Annotations.of(scope).addWarningV2(
      'kfek:monitoring:queriesWithoutLogGroups',
      'No source log groups given: the saved Logs Insights queries are saved without a log group selection.',
    );
  }
}

/** Throws on a threshold that would make a broken or silent alarm; `where` names the construct. */
function validateThresholds(where: string, t: ResolvedThresholds): void {
  const check = (name: keyof PipelineAlarmThresholds, value: number, ok: boolean, expected: string): void => {
    if (Token.isUnresolved(value)) return;
    if (!Number.isFinite(value) || !ok) {
      throw new Error(`${where}: thresholds.${name} is ${value}; expected ${expected}.`);
    }
  };
  if (!t.maxIteratorAge.isUnresolved()) {
    const millis = t.maxIteratorAge.toMilliseconds({ integral: false });
    if (!Number.isFinite(millis) || millis < 1000) {
      throw new Error(
        `${where}: thresholds.maxIteratorAge is ${millis} ms; expected a Duration of at least 1 second.`,
      );
    }
  }
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
}
