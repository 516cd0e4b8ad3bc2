/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "*.hasResourceProperties", "*.resourceCountIs", "*.*.resourceCountIs", "*.hasWarning"] }] */
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import {
  DEFAULT_ALARM_THRESHOLDS,
  type PipelineAlarmThresholds,
} from '../../../lib/constructs/pipeline-monitoring';
import { SAVED_QUERIES, renderInsightsQuery } from '../../../core/contracts/saved-queries';
import { MonitoringStack, type MonitoringStackProps } from '../../../lib/stacks/monitoring-stack';
import { testOutdir } from '../../helpers/temp-dirs';

const ENV = { account: '123456789012', region: 'eu-west-1' };

/** Builds the stacks the monitoring stack reads from, standing in for the search and pipeline stacks. */
function synth(overrides: Partial<MonitoringStackProps> = {}): {
  template: Template;
  stack: MonitoringStack;
} {
  const app = new App({ outdir: testOutdir() });
  const source = new Stack(app, 'Source', { env: ENV });
  const rawStream = new kinesis.Stream(source, 'Raw', { streamName: 'kfek-raw' });
  const eventsStream = new kinesis.Stream(source, 'Events', { streamName: 'kfek-events' });
  const domain = opensearch.Domain.fromDomainAttributes(source, 'Domain', {
    domainArn: 'arn:aws:es:eu-west-1:123456789012:domain/kfek-search',
    domainEndpoint: 'https://search-kfek-search-abc.eu-west-1.es.amazonaws.com',
  });
  const stack = new MonitoringStack(app, 'Monitoring', {
    env: ENV,
    rawStream,
    eventsStream,
    transformFunctionName: 'kfek-transform',
    deliveryStreamName: 'kfek-delivery',
    domain,
    sourceLogGroupNames: ['/kfek/app', '/aws/lambda/orders'],
    dataNodeVolumeSizeInGiB: 10,
    ...overrides,
  });
  return { template: Template.fromStack(stack), stack };
}

/** One alarm, whatever form CDK wrote it in (plain metric, or the `Metrics` array the library uses). */
interface NormalizedAlarm {
  readonly name: string;
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: Record<string, unknown>;
  readonly statistic: string;
  readonly periodInSeconds: number;
  readonly threshold: number;
  readonly comparison: string;
  readonly missing: string;
  readonly evaluationPeriods: number;
  readonly datapoints: number;
  readonly description: string;
  readonly alarmActions: unknown;
  readonly okActions: unknown;
}

interface AlarmProperties {
  AlarmName: string;
  AlarmDescription: string;
  Namespace?: string;
  MetricName?: string;
  Dimensions?: { Name: string; Value: unknown }[];
  Statistic?: string;
  Period?: number;
  Metrics?: {
    MetricStat: {
      Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string; Value: unknown }[] };
      Stat: string;
      Period: number;
    };
  }[];
  Threshold: number;
  ComparisonOperator: string;
  TreatMissingData: string;
  EvaluationPeriods: number;
  DatapointsToAlarm?: number;
  AlarmActions: unknown;
  OKActions: unknown;
}

function alarmsOf(template: Template): NormalizedAlarm[] {
  return Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((resource) => {
    const p = (resource as { Properties: AlarmProperties }).Properties;
    const stat = p.Metrics?.[0]?.MetricStat;
    if (p.Metrics !== undefined) expect(p.Metrics).toHaveLength(1);
    const dims = stat?.Metric.Dimensions ?? p.Dimensions ?? [];
    return {
      name: p.AlarmName,
      namespace: stat?.Metric.Namespace ?? p.Namespace ?? '',
      metricName: stat?.Metric.MetricName ?? p.MetricName ?? '',
      dimensions: Object.fromEntries(dims.map((d) => [d.Name, d.Value])),
      statistic: stat?.Stat ?? p.Statistic ?? '',
      periodInSeconds: stat?.Period ?? p.Period ?? 0,
      threshold: p.Threshold,
      comparison: p.ComparisonOperator,
      missing: p.TreatMissingData,
      evaluationPeriods: p.EvaluationPeriods,
      datapoints: p.DatapointsToAlarm ?? p.EvaluationPeriods,
      description: p.AlarmDescription,
      alarmActions: p.AlarmActions,
      okActions: p.OKActions,
    };
  });
}

function alarmOn(
  alarms: NormalizedAlarm[],
  metricName: string,
  dimension?: readonly [string, (value: unknown) => boolean],
): NormalizedAlarm {
  const matches = alarms.filter(
    (alarm) =>
      alarm.metricName === metricName &&
      (dimension === undefined || dimension[1](alarm.dimensions[dimension[0]])),
  );
  expect(matches).toHaveLength(1);
  return matches[0];
}

/** Dimension values of the source stack's streams and function reach this stack as imports. */
const importOf =
  (fragment: string) =>
  (value: unknown): boolean => {
    const imported = (value as { 'Fn::ImportValue'?: unknown } | undefined)?.['Fn::ImportValue'];
    return typeof imported === 'string' && imported.includes(fragment);
  };

describe('MonitoringStack alarms', () => {
  const { template } = synth();
  const alarms = alarmsOf(template);

  test('every alarm notifies the topic on ALARM and on OK, and links its runbook', () => {
    // 2 streams x 2, Lambda x 3, OpenSearch x 4, hand-written x 5
    expect(alarms).toHaveLength(16);
    const topic = [{ Ref: expect.stringMatching(/^MonitoringAlarmTopic/) }];
    for (const alarm of alarms) {
      expect(alarm).toEqual(expect.objectContaining({ alarmActions: topic, okActions: topic }));
      expect(alarm.description).toMatch(/What to do: docs\/operations\.md#[a-z-]+$/);
      expect(alarm.name).toMatch(/^kfek-/);
    }
  });

  test('iterator age on both streams, missing data breaching', () => {
    for (const stream of ['Raw', 'Events']) {
      const alarm = alarmOn(alarms, 'GetRecords.IteratorAgeMilliseconds', ['StreamName', importOf(stream)]);
      expect(alarm).toEqual(
        expect.objectContaining({
          namespace: 'AWS/Kinesis',
          statistic: 'Maximum',
          threshold: DEFAULT_ALARM_THRESHOLDS.maxIteratorAge.toMilliseconds(),
          comparison: 'GreaterThanThreshold',
          missing: 'breaching',
        }),
      );
    }
  });

  test('write throttling on both streams, sustained for the configured periods', () => {
    for (const stream of ['Raw', 'Events']) {
      expect(alarmOn(alarms, 'WriteProvisionedThroughputExceeded', ['StreamName', importOf(stream)])).toEqual(
        expect.objectContaining({
          namespace: 'AWS/Kinesis',
          threshold: 0,
          comparison: 'GreaterThanThreshold',
          evaluationPeriods: 3,
          datapoints: 3,
          missing: 'notBreaching',
        }),
      );
    }
  });

  test('transform errors page at once; throttles and iterator age when sustained', () => {
    // The function is found by its fixed name (an ARN built in this stack, its name selected at deploy time),
    // never imported from the Pipeline stack.
    const fn = [
      'FunctionName',
      (value: unknown) =>
        JSON.stringify(value).includes(':function:kfek-transform') &&
        !JSON.stringify(value).includes('ImportValue'),
    ] as const;
    expect(alarmOn(alarms, 'Errors', fn)).toEqual(
      expect.objectContaining({
        namespace: 'AWS/Lambda',
        statistic: 'Sum',
        threshold: 0,
        evaluationPeriods: 1,
      }),
    );
    expect(alarmOn(alarms, 'Throttles', fn)).toEqual(
      expect.objectContaining({
        namespace: 'AWS/Lambda',
        statistic: 'Sum',
        threshold: 0,
        evaluationPeriods: 3,
      }),
    );
    expect(alarmOn(alarms, 'IteratorAge', fn)).toEqual(
      expect.objectContaining({ statistic: 'Maximum', threshold: 300_000, missing: 'notBreaching' }),
    );
  });

  test('poison records use the EMF metric with the Powertools service dimension', () => {
    expect(alarmOn(alarms, 'PoisonRecords')).toEqual(
      expect.objectContaining({
        name: 'kfek-PoisonRecords',
        namespace: 'kfek',
        dimensions: { service: 'transform' },
        statistic: 'Sum',
        threshold: 0,
        comparison: 'GreaterThanThreshold',
        missing: 'notBreaching',
      }),
    );
  });

  test('Firehose delivery success, freshness and failed documents', () => {
    const dimensions = { DeliveryStreamName: 'kfek-delivery' };
    expect(alarmOn(alarms, 'DeliveryToAmazonOpenSearchService.Success')).toEqual(
      expect.objectContaining({
        namespace: 'AWS/Firehose',
        dimensions,
        statistic: 'Average',
        threshold: 1,
        comparison: 'LessThanThreshold',
        missing: 'notBreaching',
      }),
    );
    expect(alarmOn(alarms, 'DeliveryToAmazonOpenSearchService.DataFreshness')).toEqual(
      expect.objectContaining({
        dimensions,
        statistic: 'Maximum',
        threshold: 900,
        comparison: 'GreaterThanThreshold',
      }),
    );
    expect(alarmOn(alarms, 'DeliveryToS3.Records')).toEqual(
      expect.objectContaining({
        dimensions,
        statistic: 'Sum',
        threshold: 0,
        comparison: 'GreaterThanThreshold',
      }),
    );
  });

  test('OpenSearch alarms use AWS/ES with DomainName and ClientId', () => {
    const dimensions = { DomainName: 'kfek-search', ClientId: '123456789012' };
    expect(alarmOn(alarms, 'ClusterStatus.red')).toEqual(
      expect.objectContaining({
        namespace: 'AWS/ES',
        dimensions,
        statistic: 'Maximum',
        threshold: 0,
        periodInSeconds: 60,
        evaluationPeriods: 1,
        // ClusterStatus has gaps (new domain, blue/green, upgrades): a gap is not a red cluster.
        missing: 'notBreaching',
      }),
    );
    expect(alarmOn(alarms, 'ClusterStatus.yellow')).toEqual(
      expect.objectContaining({ namespace: 'AWS/ES', dimensions, threshold: 0, missing: 'notBreaching' }),
    );
    expect(alarmOn(alarms, 'ClusterIndexWritesBlocked')).toEqual(
      expect.objectContaining({ namespace: 'AWS/ES', dimensions, threshold: 0, evaluationPeriods: 1 }),
    );
    expect(alarmOn(alarms, 'JVMMemoryPressure')).toEqual(
      expect.objectContaining({ namespace: 'AWS/ES', dimensions, statistic: 'Maximum', threshold: 80 }),
    );
    // 25% of the 10 GiB volume.
    expect(alarmOn(alarms, 'FreeStorageSpace')).toEqual(
      expect.objectContaining({
        namespace: 'AWS/ES',
        dimensions,
        statistic: 'Minimum',
        threshold: 2560,
        comparison: 'LessThanOrEqualToThreshold',
      }),
    );
  });

  test('thresholds come from config', () => {
    // GIVEN
    const thresholds: PipelineAlarmThresholds = {
      maxIteratorAge: Duration.seconds(60),
      maxTransformErrors: 2,
      maxPoisonRecords: 5,
      maxFailedDocuments: 7,
      minDeliverySuccessRatio: 0.99,
      maxDeliveryDataFreshnessInSeconds: 600,
      minFreeStorageSpaceInMiB: 1000,
      maxJvmMemoryPressurePercent: 90,
      writeThrottlingPeriods: 6,
      alarmOnClusterStatusYellow: false,
    };
    // WHEN
    const custom = alarmsOf(synth({ thresholds }).template);
    // THEN
    expect(
      custom.filter((a) => a.metricName === 'GetRecords.IteratorAgeMilliseconds').map((a) => a.threshold),
    ).toEqual([60_000, 60_000]);
    expect(alarmOn(custom, 'IteratorAge').threshold).toBe(60_000);
    expect(alarmOn(custom, 'Errors').threshold).toBe(2);
    expect(
      custom
        .filter((a) => a.metricName === 'WriteProvisionedThroughputExceeded')
        .map((a) => a.evaluationPeriods),
    ).toEqual([6, 6]);
    expect(alarmOn(custom, 'PoisonRecords').threshold).toBe(5);
    expect(alarmOn(custom, 'DeliveryToS3.Records').threshold).toBe(7);
    expect(alarmOn(custom, 'DeliveryToAmazonOpenSearchService.Success').threshold).toBe(0.99);
    expect(alarmOn(custom, 'DeliveryToAmazonOpenSearchService.DataFreshness').threshold).toBe(600);
    expect(alarmOn(custom, 'FreeStorageSpace').threshold).toBe(1000);
    expect(alarmOn(custom, 'JVMMemoryPressure').threshold).toBe(90);
    expect(custom.filter((a) => a.metricName === 'ClusterStatus.yellow')).toHaveLength(0);
  });

  test('free storage falls back to 20 GiB when the volume size is unknown', () => {
    const unknown = alarmsOf(synth({ dataNodeVolumeSizeInGiB: undefined }).template);
    expect(alarmOn(unknown, 'FreeStorageSpace').threshold).toBe(20_480);
  });

  test('fails when a threshold is out of range', () => {
    expect(() => synth({ thresholds: { minDeliverySuccessRatio: 1.5 } })).toThrow(
      /thresholds\.minDeliverySuccessRatio is 1\.5; expected a ratio in \(0, 1\]/,
    );
    expect(() => synth({ thresholds: { maxIteratorAge: Duration.millis(Number.NaN) } })).toThrow(
      /PipelineMonitoring Monitoring\/Monitoring: thresholds\.maxIteratorAge is NaN ms/,
    );
    expect(() => synth({ thresholds: { maxIteratorAge: Duration.millis(500) } })).toThrow(
      /thresholds\.maxIteratorAge is 500 ms; expected a Duration of at least 1 second/,
    );
    expect(() => synth({ thresholds: { writeThrottlingPeriods: 1.5 } })).toThrow(/writeThrottlingPeriods/);
    expect(() => synth({ thresholds: { maxPoisonRecords: -1 } })).toThrow(/maxPoisonRecords is -1/);
  });

  test('validation errors name the construct props, never a config key that does not exist', () => {
    // The construct's props are not the config's keys (alarms.iteratorAgeMs, alarms.poisonRecords, ...): naming an
    // "alarms.*" key here sent operators looking for settings such as alarms.maxIteratorAgeInSeconds.
    const messages = [
      { thresholds: { maxIteratorAge: Duration.millis(1) } },
      { thresholds: { maxPoisonRecords: -1 } },
      { thresholds: { minFreeStorageSpaceInMiB: 20_480 } },
      { alarmEmail: 'ops at example' },
    ].map((overrides) => {
      try {
        synth(overrides);
        return 'no error';
      } catch (error) {
        return String(error);
      }
    });
    for (const message of messages) {
      expect(message).toMatch(/PipelineMonitoring Monitoring\/Monitoring: (thresholds\.|alarmEmail)/);
      expect(message).not.toMatch(/alarms\./);
    }
  });

  test('fails when the free-storage threshold exceeds the volume', () => {
    expect(() => synth({ thresholds: { minFreeStorageSpaceInMiB: 20_480 } })).toThrow(
      /only 10 GiB .* the alarm would always fire/,
    );
  });

  test('fails when the alarm e-mail is not an address', () => {
    expect(() => synth({ alarmEmail: 'ops at example' })).toThrow(/alarmEmail is "ops at example"/);
  });

  test('fails when more than 50 log groups are given for the queries', () => {
    const many = Array.from({ length: 51 }, (_, i) => `/app/${i}`);
    expect(() => synth({ sourceLogGroupNames: many })).toThrow(/at most 50 log groups/);
  });
});

describe('MonitoringStack with the Pipes transport', () => {
  test('has no transform IteratorAge alarm or graph: only event source mappings emit it', () => {
    // GIVEN
    const { template } = synth({ invokedByEventSourceMapping: false });
    // THEN
    const alarms = JSON.stringify(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).not.toContain('"IteratorAge"');
    // The raw stream's alarm watches the pipe falling behind instead.
    expect(alarms).toContain('GetRecords.IteratorAgeMilliseconds');
    expect(JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'))).not.toContain(
      'transform IteratorAge',
    );
  });

  test('the Lambda transport keeps both', () => {
    const { template } = synth();
    expect(JSON.stringify(template.findResources('AWS::CloudWatch::Alarm'))).toContain('"IteratorAge"');
    expect(JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'))).toContain(
      'transform IteratorAge',
    );
  });
});

describe('MonitoringStack topic', () => {
  test('is encrypted with a rotating customer managed key CloudWatch may use, and enforces TLS', () => {
    const { template } = synth({ alarmEmail: 'ops@example.com' });
    template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('AlarmTopicKey'), 'Arn'] },
    });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  test('keeps the notifications it could not e-mail in a dead-letter queue (redrive policy)', () => {
    const { template } = synth({ alarmEmail: 'ops@example.com' });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('AlarmEmailDeadLetterQueue'), 'Arn'] },
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 1_209_600,
    });
  });

  test('has no subscription without an e-mail', () => {
    synth().template.resourceCountIs('AWS::SNS::Subscription', 0);
  });
});

describe('MonitoringStack dashboard', () => {
  const { template } = synth();

  function dashboardBody(): string {
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    // The body is an Fn::Join of literal JSON and tokens; the literal parts are what we assert on.
    const body = (dashboards[0] as { Properties: { DashboardBody: unknown } }).Properties.DashboardBody;
    return JSON.stringify(body);
  }

  test('is one dashboard named after the pipeline', () => {
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'kfek-pipeline' });
  });

  test.each([
    ['records in', 'IncomingRecords'],
    ['EMF records in', '\\"kfek\\",\\"RecordsIn\\",\\"service\\",\\"transform\\"'],
    ['EMF events out', '\\"kfek\\",\\"EventsOut\\",\\"service\\",\\"transform\\"'],
    ['EMF records out', '\\"kfek\\",\\"RecordsOut\\",\\"service\\",\\"transform\\"'],
    ['EMF overflow documents (Pipes)', '\\"kfek\\",\\"OverflowDocuments\\",\\"service\\",\\"transform\\"'],
    ['documents per events-stream record', 'IF(recordsOut > 0, eventsOut / recordsOut)'],
    ['iterator age', 'GetRecords.IteratorAgeMilliseconds'],
    ['Lambda iterator age', 'IteratorAge'],
    ['Lambda duration', 'Duration'],
    ['Lambda concurrency', 'ConcurrentExecutions'],
    ['Firehose delivery', 'DeliveryToAmazonOpenSearchService.Records'],
    ['Firehose failed documents', 'DeliveryToS3.Records'],
    ['OpenSearch indexing rate', 'IndexingRate'],
    ['OpenSearch storage', 'FreeStorageSpace'],
    ['alarm status', 'alarm'],
  ])('shows %s', (_what, fragment) => {
    expect(dashboardBody()).toContain(fragment);
  });
});

describe('MonitoringStack saved queries', () => {
  const { template, stack } = synth();

  test.each(SAVED_QUERIES.map((query) => [query.name, query] as const))(
    'saves %s on the source log groups with the same text the CLI runs',
    (name, query) => {
      template.hasResourceProperties('AWS::Logs::QueryDefinition', {
        Name: `kfek/${name}`,
        QueryString: renderInsightsQuery(query.parts),
        LogGroupNames: ['/kfek/app', '/aws/lambda/orders'],
      });
    },
  );

  test('the errors query is the documented one', () => {
    template.hasResourceProperties('AWS::Logs::QueryDefinition', {
      Name: 'kfek/errors-by-15m',
      QueryString: 'filter level == "ERROR"\n| stats count(*) as errors by bin(15m)',
    });
  });

  test('the REPORT query computes percentiles, cold starts and memory headroom', () => {
    const report = Object.values(
      template.findResources('AWS::Logs::QueryDefinition', {
        Properties: { Name: 'kfek/lambda-report-stats' },
      }),
    );
    expect(report).toHaveLength(1);
    const text = (report[0] as { Properties: { QueryString: string } }).Properties.QueryString;
    expect(text).toMatch(/^filter @type = "REPORT"\n\| stats /);
    for (const part of [
      'pct(@duration, 50)',
      'pct(@duration, 95)',
      'max(@duration)',
      'count(@initDuration)',
    ]) {
      expect(text).toContain(part);
    }
    expect(text).toContain('memorySizeMB - maxMemoryUsedMB as memoryHeadroomMB');
  });

  test('warns when no log groups are given', () => {
    const bare = synth({ sourceLogGroupNames: [] });
    Annotations.fromStack(bare.stack).hasWarning('*', Match.stringLikeRegexp('saved without a log group'));
    bare.template.hasResourceProperties('AWS::Logs::QueryDefinition', { LogGroupNames: [] });
    expect(stack.monitoring.queryDefinitions).toHaveLength(SAVED_QUERIES.length);
  });

  test('renderInsightsQuery matches logs.QueryString', () => {
    for (const query of SAVED_QUERIES) {
      const cdk = new logs.QueryString({
        fields: query.parts.fields ? [...query.parts.fields] : undefined,
        filterStatements: query.parts.filterStatements ? [...query.parts.filterStatements] : undefined,
        statsStatements: query.parts.statsStatements ? [...query.parts.statsStatements] : undefined,
        sort: query.parts.sort,
        limit: query.parts.limit,
      });
      expect(renderInsightsQuery(query.parts)).toBe(cdk.toString());
    }
  });
});

describe('MonitoringStack template', () => {
  test('matches the reviewed snapshot (asset hashes masked)', () => {
    // One whole-template snapshot: a diff here is reviewed, never blindly updated.
    expect(synth().template.toJSON()).toMatchSnapshot();
  });
});
