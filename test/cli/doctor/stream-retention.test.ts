/**
 * A lower stream retention trims what a lagging reader has not read (issue 30.5): the doctor's check from hand-built
 * facts, and its CloudWatch question against moto (which stores and answers GetRecords.IteratorAgeMilliseconds
 * datapoints put with PutMetricData).
 */
import { CloudWatchClient, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { iteratorAgePort } from '../../../cli/doctor/cloudwatch-port';
import type { DoctorFacts, Probe } from '../../../cli/doctor/model';
import type { ProfilePlan } from '../../../cli/doctor/plan';
import { checkStreamRetention, type StreamLag } from '../../../cli/doctor/stream-retention';
import type { CfnTemplate } from '../../../core/change-plan';
import { startMoto, type MotoServer } from '../../../scripts/moto-server';

const search = (retentionHours?: number): CfnTemplate =>
  ({
    Resources: {
      RawStream: {
        Type: 'AWS::Kinesis::Stream',
        Properties: {
          Name: 'kfek-test-raw',
          ...(retentionHours === undefined ? {} : { RetentionPeriodHours: retentionHours }),
        },
      },
    },
  });

const planWith = (template: CfnTemplate): ProfilePlan => ({
  profile: 'test',
  stackNames: { Search: 'kfek-test-search' },
  requiredBootstrapVersion: 6,
  bootstrapParameter: undefined,
  domain: undefined,
  consumers: [],
  reservedConcurrency: 0,
  namedResources: [],
  subscriptions: [],
  stacks: [
    {
      id: 'Search',
      stackName: 'kfek-test-search',
      account: undefined,
      region: undefined,
      dependsOn: [],
      template,
    },
  ],
});

function facts(before: CfnTemplate, lag?: Probe<readonly StreamLag[]>): DoctorFacts {
  return {
    profile: 'test',
    region: { ok: true, value: 'eu-west-1' },
    deployedTemplates: {
      ok: true,
      value: [{ stackName: 'kfek-test-search', status: 'UPDATE_COMPLETE', template: before }],
    },
    ...(lag === undefined ? {} : { streamLag: lag }),
  };
}
const lagOf = (ms: number | undefined): Probe<readonly StreamLag[]> => ({
  ok: true,
  value: [{ streamName: 'kfek-test-raw', maxIteratorAgeMillis: ms }],
});
const HOUR = 3_600_000;

describe('streams-retention', () => {
  test('fails when the readers lag more than the new retention: what they have not read is trimmed', () => {
    expect(checkStreamRetention(facts(search(168), lagOf(30 * HOUR)), planWith(search(24)))).toEqual({
      check: 'streams-retention',
      status: 'fail',
      finding:
        'kfek-test-raw 168 h -> 24 h: its readers are up to 30.0 h behind, so the records they have not read yet are trimmed at the deploy',
      fix: expect.stringMatching(/^let the readers catch up first/) as string,
    });
  });

  test('warns past half the new retention, and when there is no datapoint or the metric cannot be read', () => {
    expect(checkStreamRetention(facts(search(48), lagOf(13 * HOUR)), planWith(search(24))).status).toBe(
      'warn',
    );
    expect(checkStreamRetention(facts(search(48), lagOf(undefined)), planWith(search(24))).status).toBe(
      'warn',
    );
    expect(
      checkStreamRetention(
        facts(search(48), { ok: false, error: 'CloudWatch: AccessDenied' }),
        planWith(search(24)),
      ),
    ).toMatchObject({
      status: 'warn',
      finding: expect.stringMatching(/cannot tell .*AccessDenied/) as string,
    });
  });

  test('is ok when the readers are well within the new retention, or nothing is lowered (24 h is the default)', () => {
    expect(checkStreamRetention(facts(search(48), lagOf(2_000)), planWith(search(24)))).toEqual({
      check: 'streams-retention',
      status: 'ok',
      finding: 'kfek-test-raw 48 h -> 24 h: its readers are at most 0.0 h behind',
    });
    expect(checkStreamRetention(facts(search(24)), planWith(search(48))).finding).toBe(
      'no stream retention lowered',
    );
    expect(checkStreamRetention(facts(search()), planWith(search(24))).finding).toBe(
      'no stream retention lowered',
    );
  });
});

describe('the CloudWatch question, against moto', () => {
  let moto: MotoServer;
  beforeAll(async () => {
    moto = await startMoto();
  }, 60_000);
  afterAll(async () => moto?.stop());

  test('answers the most a reader lagged in the last hour, and nothing without a datapoint', async () => {
    const cloudwatch = new CloudWatchClient({
      region: 'eu-west-1',
      endpoint: moto.endpoint,
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' },
      requestHandler: new NodeHttpHandler(),
    });
    const now = Date.now();
    await cloudwatch.send(
      new PutMetricDataCommand({
        Namespace: 'AWS/Kinesis',
        MetricData: [5_000, 90_000, 12_000].map((value, i) => ({
          MetricName: 'GetRecords.IteratorAgeMilliseconds',
          Dimensions: [{ Name: 'StreamName', Value: 'kfek-test-raw' }],
          Timestamp: new Date(now - (i + 1) * 600_000),
          Value: value,
        })),
      }),
    );
    const port = iteratorAgePort(cloudwatch, () => now);
    expect(await port('kfek-test-raw')).toBe(90_000);
    expect(await port('kfek-test-events')).toBeUndefined();
  });
});
