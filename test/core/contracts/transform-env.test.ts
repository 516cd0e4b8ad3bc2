/**
 * The transform's environment is a contract with one owner (core/contracts/transform-env.ts): the writer used by
 * the Pipeline stack and the local runner, and the reader in the Lambda, must agree, and no other file may spell
 * the variable names.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import {
  TransformEnvVar,
  TransformServiceName,
  transformEnvironment,
  transformServiceName,
} from '../../../core/contracts/transform-env';
import { readCommonEnv, readTransformEnv } from '../../../lambda/transform/env';

const ARN = 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events';
const ROOT = path.resolve(__dirname, '..', '..', '..');
const OWNER = path.join('core', 'contracts', 'transform-env.ts');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|js|mjs)$/.test(name) ? [full] : [];
  });
}

test('the reader reads back every setting the writer writes', () => {
  // GIVEN
  const env = transformEnvironment({
    metricsNamespace: 'acme',
    serviceName: TransformServiceName.kinesis,
    eventsStreamArn: ARN,
    deadLetterBucket: 'kfek-dlq',
    deadLetterPrefix: 'poison/',
    aggregation: false,
    sourceRegions: ['eu-west-1', 'us-east-1'],
    routes: [
      {
        name: 'payments',
        match: { logGroupPrefix: '/app/payments/' },
        staticFields: { team: 'payments' },
        processing: { drop: [] },
      },
    ],
  });
  // WHEN
  const read = readTransformEnv(env);
  // THEN
  expect(read).toEqual({
    metricsNamespace: 'acme',
    serviceName: 'transform',
    eventsStreamArn: ARN,
    deadLetterBucket: 'kfek-dlq',
    deadLetterPrefix: 'poison/',
    aggregation: false,
    s3ForcePathStyle: false,
    sourceRegions: ['eu-west-1', 'us-east-1'],
    routes: [
      expect.objectContaining({
        name: 'payments',
        match: { logGroupPrefix: '/app/payments/' },
        staticFields: { team: 'payments' },
      }),
    ],
  });
});

test('settings left out stay unset, so the reader applies its defaults', () => {
  // GIVEN
  const env = transformEnvironment({
    serviceName: TransformServiceName.kinesis,
    eventsStreamArn: ARN,
    deadLetterBucket: 'kfek-dlq',
  });
  // WHEN
  const read = readTransformEnv(env);
  // THEN
  expect(Object.keys(env).sort()).toEqual(
    [TransformEnvVar.ServiceName, TransformEnvVar.EventsStreamArn, TransformEnvVar.DeadLetterBucket].sort(),
  );
  expect(read).toMatchObject({
    metricsNamespace: 'kfek',
    deadLetterPrefix: 'dead-letter/transform/',
    aggregation: true,
  });
});

test('the Pipes enrichment gets the common settings only, under its own service name', () => {
  const env = transformEnvironment({ metricsNamespace: 'kfek', serviceName: transformServiceName('pipes') });
  expect(env).toEqual({ POWERTOOLS_METRICS_NAMESPACE: 'kfek', POWERTOOLS_SERVICE_NAME: 'transform-pipes' });
  expect(readCommonEnv(env).serviceName).toBe('transform-pipes');
  expect(transformServiceName('lambda')).toBe('transform');
});

test('no file outside core/contracts spells the transform variable names or a service name', () => {
  // Powertools' own variables (POWERTOOLS_*) are legitimately set by tests and the local runner for log level and
  // metrics switches, so only the kfek-specific names and the service names are held to one owner.
  const owned = [
    TransformEnvVar.EventsStreamArn,
    TransformEnvVar.DeadLetterBucket,
    TransformEnvVar.DeadLetterPrefix,
    TransformEnvVar.EventsAggregation,
  ];
  const literal = new RegExp(
    `(['"\`](${owned.join('|')})['"\`])|(\\b(${owned.join('|')}|POWERTOOLS_SERVICE_NAME|POWERTOOLS_METRICS_NAMESPACE)\\s*:)|` +
      `(['"\`](transform-pipes|kfek-transform)['"\`].*(service|SERVICE))|((service|SERVICE).*['"\`](transform|transform-pipes|kfek-transform)['"\`])`,
  );
  const offenders = ['lib', 'lambda', 'core', 'cli', 'scripts', 'bin', 'bench']
    .flatMap((dir) => sourceFiles(path.join(ROOT, dir)))
    .filter((file) => path.relative(ROOT, file) !== OWNER)
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, where: `${path.relative(ROOT, file)}:${i + 1}` }))
        .filter(({ line }) => !/^\s*(\*|\/\/|\/\*)/.test(line) && literal.test(line))
        .map(({ line, where }) => `${where}: ${line.trim()}`),
    );
  expect(offenders).toEqual([]);
});
