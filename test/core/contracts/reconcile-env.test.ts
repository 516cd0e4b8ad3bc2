import {
  readReconcileEnvironment,
  reconcileEnvironment,
  ReconcileEnvError,
} from '../../../core/contracts/reconcile-env';
import { scheduledWindow } from '../../../core/reconcile/schedule';

const JOB = {
  logGroups: [{ name: '/kfek/production/app', filterPattern: '' }],
  account: '123456789012',
  rawStreamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-production-raw',
  bucket: 'kfek-failed',
  deadLetterPrefix: 'dead-letter/transform/',
  failedDocumentsPrefix: 'failed-documents/',
  openSearchUrl: 'https://search-kfek-production-abc.eu-west-1.es.amazonaws.com',
  indexPrefix: 'logs',
  indexRotation: 'OneDay' as const,
  routeStems: { payments: 'payments' },
  everyMinutes: 15,
  lagMinutes: 20,
  heal: true,
};

describe('the reconcile function environment', () => {
  test('the reader reads back what the writer writes', () => {
    const env = reconcileEnvironment({ ...JOB, routes: [], metricsNamespace: 'kfek' });
    expect(readReconcileEnvironment(env)).toEqual({
      job: JOB,
      routes: [],
      metricsNamespace: 'kfek',
      serviceName: 'reconcile',
    });
  });

  test("a Serverless collection's job names the aoss signing service; a domain's names none (es)", () => {
    // GIVEN
    const collection = {
      ...JOB,
      openSearchUrl: 'https://abc123.eu-west-1.aoss.amazonaws.com',
      signingService: 'aoss' as const,
    };
    // WHEN
    const read = readReconcileEnvironment(
      reconcileEnvironment({ ...collection, routes: [], metricsNamespace: 'kfek' }),
    );
    // THEN
    expect(read.job).toEqual(collection);
    expect(
      readReconcileEnvironment(reconcileEnvironment({ ...JOB, routes: [], metricsNamespace: 'kfek' })).job
        .signingService,
    ).toBeUndefined();
  });

  test.each([
    [{}, /is not set/],
    [{ KFEK_RECONCILE: 'x' }, /is not JSON/],
    [{ KFEK_RECONCILE: JSON.stringify({ ...JOB, v: 2 }) }, /version is 2/],
    [{ KFEK_RECONCILE: JSON.stringify({ ...JOB, v: 1, bucket: '' }) }, /bucket is missing/],
    [{ KFEK_RECONCILE: JSON.stringify({ ...JOB, v: 1, lagMinutes: 0 }) }, /lagMinutes is not a positive/],
    [{ KFEK_RECONCILE: JSON.stringify({ ...JOB, v: 1, logGroups: ['/a'] }) }, /logGroups is not a list/],
    [
      { KFEK_RECONCILE: JSON.stringify({ ...JOB, v: 1, indexPrefix: 'logs,other' }) },
      /indexPrefix is "logs,other"; expected a lowercase OpenSearch index name prefix/,
    ],
    [
      { KFEK_RECONCILE: JSON.stringify({ ...JOB, v: 1, routeStems: { pay: 'pay*' } }) },
      /routeStems\.pay is "pay\*": it contains "\*"/,
    ],
    [
      { KFEK_RECONCILE: JSON.stringify({ ...JOB, v: 1, routeStems: { pay: 7 } }) },
      /routeStems\.pay is 7; expected the stem/,
    ],
    [
      { KFEK_RECONCILE: JSON.stringify({ ...JOB, v: 1, signingService: 'es2' }) },
      /signingService is "es2", not "es" or "aoss"/,
    ],
  ])('fails when the environment is %j', (env, message) => {
    expect(() => readReconcileEnvironment(env)).toThrow(ReconcileEnvError);
    expect(() => readReconcileEnvironment(env)).toThrow(message);
  });
});

describe('scheduledWindow', () => {
  const at = (hhmm: string): number => Date.parse(`2026-11-27T${hhmm}:00Z`);
  test('judges the period that ended the lag before the run was due', () => {
    expect(scheduledWindow(at('10:07'), 15, 15)).toEqual({ since: at('09:30'), until: at('09:45') });
    expect(scheduledWindow(at('10:22'), 15, 15)).toEqual({ since: at('09:45'), until: at('10:00') });
  });

  test('runs due one period apart judge windows that follow each other', () => {
    const first = scheduledWindow(at('10:14') + 59_000, 15, 20);
    const second = scheduledWindow(at('10:29') + 59_000, 15, 20);
    expect(second.since).toBe(first.until);
  });
});
