/**
 * The monitoring stack as lib/app.ts wires it: thresholds and e-mail from the profile's `alarms` section, the EMF
 * namespace and Powertools service of the transform the pipeline actually deploys.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { buildTestApp } from '../../helpers/app';

interface AlarmProps {
  AlarmName: string;
  Threshold: number;
  MetricName?: string;
  Namespace?: string;
  Dimensions?: { Name: string; Value: unknown }[];
  Metrics?: { MetricStat: { Metric: { MetricName: string } } }[];
}

function alarms(template: Template): AlarmProps[] {
  return Object.values(template.findResources('AWS::CloudWatch::Alarm')).map(
    (r) => (r as { Properties: AlarmProps }).Properties,
  );
}

function metricOf(alarm: AlarmProps): string | undefined {
  return alarm.MetricName ?? alarm.Metrics?.[0].MetricStat.Metric.MetricName;
}

/** The Powertools service name the pipeline stack gives the transform function (not the reconcile function). */
function serviceOfTransform(pipeline: Template): unknown {
  const functions = Object.values(pipeline.findResources('AWS::Lambda::Function'))
    .map((r) => (r as { Properties: { Environment?: { Variables?: Record<string, unknown> } } }).Properties)
    .filter((f) => f.Environment?.Variables?.KFEK_RECONCILE === undefined);
  const services = functions
    .map((f) => f.Environment?.Variables?.POWERTOOLS_SERVICE_NAME)
    .filter((s) => s !== undefined);
  expect(services).toHaveLength(1);
  return services[0];
}

describe('buildKfek monitoring wiring', () => {
  test('maps the alarms section of the profile onto the alarms', () => {
    // GIVEN the sandbox profile of cdk.json
    const { stacks, config } = buildTestApp();
    // WHEN
    const all = alarms(Template.fromStack(stacks.monitoring));
    const byMetric = (name: string) => all.filter((a) => metricOf(a) === name);
    // THEN
    expect(byMetric('GetRecords.IteratorAgeMilliseconds').map((a) => a.Threshold)).toEqual([
      config.alarms.iteratorAgeMs,
      config.alarms.iteratorAgeMs,
    ]);
    // "Alarm at this many" in the config; "greater than" in CloudWatch.
    expect(byMetric('PoisonRecords').map((a) => a.Threshold)).toEqual([config.alarms.poisonRecords - 1]);
    expect(byMetric('DeliveryToAmazonOpenSearchService.DataFreshness').map((a) => a.Threshold)).toEqual([
      config.alarms.firehoseFreshnessSeconds,
    ]);
    expect(byMetric('FreeStorageSpace').map((a) => a.Threshold)).toEqual([config.alarms.freeStorageMb]);
    expect(byMetric('JVMMemoryPressure').map((a) => a.Threshold)).toEqual([
      config.alarms.jvmMemoryPressurePercent,
    ]);
    expect(all.every((a) => a.AlarmName.startsWith(`${config.name}-${config.profile}-`))).toBe(true);
  });

  test.each(['sandbox', 'production'])(
    'the poison alarm watches the namespace and service the %s transform publishes',
    (profile) => {
      const { stacks, config } = buildTestApp({ profile });
      const poison = alarms(Template.fromStack(stacks.monitoring)).filter(
        (a) => metricOf(a) === 'PoisonRecords',
      );
      expect(poison).toHaveLength(1);
      expect(poison[0].Namespace).toBe(config.name);
      expect(poison[0].Dimensions).toEqual([
        { Name: 'service', Value: serviceOfTransform(Template.fromStack(stacks.pipeline)) },
      ]);
    },
  );

  test('with the Pipes transport, the poison alarm follows the enrichment function’s service', () => {
    // Batch size 10, as documented for Pipes (a larger one makes synth print its batch-size warning).
    const { stacks } = buildTestApp({ overrides: { transport: 'pipes', transform: { batchSize: 10 } } });
    const poison = alarms(Template.fromStack(stacks.monitoring)).filter(
      (a) => metricOf(a) === 'PoisonRecords',
    );
    const service = serviceOfTransform(Template.fromStack(stacks.pipeline));
    expect(service).toBe('transform-pipes');
    expect(poison[0].Dimensions).toEqual([{ Name: 'service', Value: service }]);
  });

  test('saves the queries on the profile’s source log groups', () => {
    const { stacks, config } = buildTestApp();
    const definitions = Template.fromStack(stacks.monitoring).findResources('AWS::Logs::QueryDefinition');
    expect(Object.keys(definitions)).toHaveLength(3);
    for (const definition of Object.values(definitions)) {
      expect((definition as { Properties: { LogGroupNames: string[] } }).Properties.LogGroupNames).toEqual(
        config.sources.logGroups.map((g) => g.name),
      );
    }
  });
});
