/**
 * npm start's reconcile step (scripts/local/reconcile-step.ts): the command line it runs and prints is one `kfek
 * reconcile` takes, the same on a domain and a collection but for `--service aoss`, read by the CLI's own parser.
 */
import { parseCliArgs } from '../../../cli/args';
import { reconcileArgs, type ReconcileStepOptions } from '../../../scripts/local/reconcile-step';

const STEP: ReconcileStepOptions = {
  profile: 'sandbox',
  logGroups: ['/kfek/sandbox/app', '/kfek/sandbox/api'],
  awsEndpoint: 'http://127.0.0.1:5000',
  region: 'eu-west-1',
  openSearchUrl: 'http://127.0.0.1:9200',
  rawStreamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-sandbox-raw',
  deadLetterBucket: 'kfek-sandbox-failed',
  workDir: '/tmp/kfek-local',
  since: new Date('2026-11-29T10:00:00Z'),
};

describe("npm start's reconcile step", () => {
  test('on a domain: the run window, moto, the node and both kept places, and no --service (the profile decides)', () => {
    // WHEN
    const argv = reconcileArgs(STEP);
    // THEN
    expect(argv).not.toContain('--service');
    expect(argv).not.toContain('--heal');
    expect(parseCliArgs(argv)).toMatchObject({
      command: 'reconcile',
      profile: 'sandbox',
      logGroups: STEP.logGroups,
      since: STEP.since,
      lagInMillis: 0,
      endpoint: STEP.awsEndpoint,
      region: STEP.region,
      openSearchUrl: STEP.openSearchUrl,
      rawStream: STEP.rawStreamArn,
      bucket: STEP.deadLetterBucket,
      localDir: STEP.workDir,
      heal: false,
    });
  });

  test('on a collection: the same command with --service aoss', () => {
    // WHEN
    const argv = reconcileArgs({ ...STEP, profile: 'sandbox-serverless', service: 'aoss' });
    // THEN
    expect(argv.slice(0, reconcileArgs(STEP).length)).toEqual(
      reconcileArgs({ ...STEP, profile: 'sandbox-serverless' }),
    );
    expect(parseCliArgs(argv)).toMatchObject({
      profile: 'sandbox-serverless',
      service: 'aoss',
      localDir: STEP.workDir,
      bucket: STEP.deadLetterBucket,
    });
  });

  test('with a heal: --heal and its timeout, exactly as given', () => {
    // WHEN
    const argv = reconcileArgs({ ...STEP, service: 'aoss', heal: { timeoutInMillis: 90_500 } });
    // THEN
    expect(parseCliArgs(argv)).toMatchObject({ heal: true, healTimeoutInMillis: 90_500, service: 'aoss' });
  });
});
