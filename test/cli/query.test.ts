/**
 * `kfek query`. moto accepts StartQuery but does not evaluate Logs Insights queries as AWS does (no `stats`, no
 * `bin()`), so these tests mock the CloudWatch Logs client with aws-sdk-client-mock and assert the calls made
 * and the handling of every answer AWS can give.
 */
import {
  CloudWatchLogsClient,
  DescribeQueryDefinitionsCommand,
  GetQueryResultsCommand,
  type QueryStatus,
  ResourceNotFoundException,
  StartQueryCommand,
  StopQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { QueryFailedError, ThrottledError, UnknownLogGroupError } from '../../core/aws/errors';
import { UnknownQueryError, UsageError } from '../../cli/errors';
import { formatQueryResult } from '../../cli/format';
import { run } from '../../cli/main';
import { runQuery } from '../../cli/query';

const logs = mockClient(CloudWatchLogsClient);
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const noSleep = (): Promise<void> => Promise.resolve();
const client = new CloudWatchLogsClient({ region: 'us-east-1' });

beforeEach(() => logs.reset());

const row = (fields: Record<string, string>) => [
  ...Object.entries(fields).map(([field, value]) => ({ field, value })),
  { field: '@ptr', value: 'CmIKKQolMTIzNDU2Nzg5MDEyOi9rZmVrL2FwcBA' },
];

describe('kfek query', () => {
  test('runs a built-in query over --since and returns its rows as a table', async () => {
    // GIVEN
    logs.on(StartQueryCommand).resolves({ queryId: 'q-1' });
    logs
      .on(GetQueryResultsCommand)
      .resolvesOnce({ status: 'Scheduled' })
      .resolvesOnce({ status: 'Running' })
      .resolves({
        status: 'Complete',
        results: [
          row({ 'bin(15m)': '2026-11-23 11:45:00.000', errors: '7' }),
          row({ 'bin(15m)': '2026-11-23 11:30:00.000', errors: '12' }),
        ],
        statistics: { recordsMatched: 19, recordsScanned: 4200, bytesScanned: 1_234_567 },
      });
    // WHEN
    const result = await runQuery(client, {
      name: 'errors-by-15m',
      logGroupNames: ['/kfek/app'],
      sinceInMillis: 3_600_000,
      now: () => NOW,
      sleep: noSleep,
    });
    // THEN
    expect(logs).toHaveReceivedCommandWith(StartQueryCommand, {
      logGroupNames: ['/kfek/app'],
      queryString: 'filter level == "ERROR"\n| stats count(*) as errors by bin(15m)',
      startTime: NOW / 1000 - 3600,
      endTime: NOW / 1000,
    });
    expect(logs).toHaveReceivedCommandTimes(GetQueryResultsCommand, 3);
    expect(result.columns).toEqual(['bin(15m)', 'errors']);
    expect(formatQueryResult(result)).toBe(
      [
        'kfek/errors-by-15m on /kfek/app',
        'bin(15m)                 errors',
        '-----------------------  ------',
        '2026-11-23 11:45:00.000  7',
        '2026-11-23 11:30:00.000  12',
        '2 rows; 19 records matched, 4200 scanned, 1234567 bytes',
      ].join('\n'),
    );
  });

  test('runs a saved definition by its full name with the log groups saved with it', async () => {
    logs.on(DescribeQueryDefinitionsCommand).resolves({
      queryDefinitions: [
        { name: 'team/slow-requests-v2', queryString: 'filter x', logGroupNames: ['/b'] },
        { name: 'team/slow-requests', queryString: 'filter duration > 1000', logGroupNames: ['/a'] },
      ],
    });
    logs.on(StartQueryCommand).resolves({ queryId: 'q-2' });
    logs.on(GetQueryResultsCommand).resolves({ status: 'Complete', results: [] });
    const result = await runQuery(client, {
      name: 'team/slow-requests',
      logGroupNames: [],
      sinceInMillis: 60_000,
      now: () => NOW,
      sleep: noSleep,
    });
    expect(logs).toHaveReceivedCommandWith(DescribeQueryDefinitionsCommand, {
      queryDefinitionNamePrefix: 'team/slow-requests',
    });
    expect(logs).toHaveReceivedCommandWith(StartQueryCommand, {
      logGroupNames: ['/a'],
      queryString: 'filter duration > 1000',
    });
    expect(formatQueryResult(result)).toContain('(no rows)');
  });

  test('fails when the name is neither built in nor saved', async () => {
    logs.on(DescribeQueryDefinitionsCommand).resolves({ queryDefinitions: [] });
    const running = runQuery(client, {
      name: 'nope',
      logGroupNames: ['/a'],
      sinceInMillis: 1,
      sleep: noSleep,
    });
    await expect(running).rejects.toThrow(UnknownQueryError);
    await expect(running).rejects.toThrow(
      /No saved query named "nope": use one of errors-by-15m, latest-errors/,
    );
  });

  test('fails when no log group is given or saved', async () => {
    await expect(
      runQuery(client, { name: 'latest-errors', logGroupNames: [], sinceInMillis: 1, sleep: noSleep }),
    ).rejects.toThrow(UsageError);
    expect(logs).toHaveReceivedCommandTimes(StartQueryCommand, 0);
  });

  test('fails with UnknownLogGroupError when a log group does not exist', async () => {
    logs
      .on(StartQueryCommand)
      .rejects(new ResourceNotFoundException({ message: 'Log group does not exist', $metadata: {} }));
    const running = runQuery(client, {
      name: 'latest-errors',
      logGroupNames: ['/gone'],
      sinceInMillis: 1,
      sleep: noSleep,
    });
    await expect(running).rejects.toThrow(UnknownLogGroupError);
    await expect(running).rejects.toThrow(/^Log group \/gone does not exist/);
  });

  test('retries LimitExceededException (too many concurrent queries), then gives up with ThrottledError', async () => {
    const limit = Object.assign(new Error('Account maximum query concurrency limit of [30] reached.'), {
      name: 'LimitExceededException',
      $metadata: { httpStatusCode: 400 },
    });
    logs.on(StartQueryCommand).rejects(limit);
    const running = runQuery(client, {
      name: 'latest-errors',
      logGroupNames: ['/a'],
      sinceInMillis: 1,
      sleep: noSleep,
      retry: { maxAttempts: 3 },
    });
    await expect(running).rejects.toThrow(ThrottledError);
    expect(logs).toHaveReceivedCommandTimes(StartQueryCommand, 3);
  });

  test('recovers when throttling stops within the retries', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), {
      name: 'ThrottlingException',
      $metadata: {},
    });
    logs.on(StartQueryCommand).rejectsOnce(throttled).resolves({ queryId: 'q-3' });
    logs.on(GetQueryResultsCommand).rejectsOnce(throttled).resolves({ status: 'Complete', results: [] });
    const result = await runQuery(client, {
      name: 'latest-errors',
      logGroupNames: ['/a'],
      sinceInMillis: 1,
      sleep: noSleep,
    });
    expect(result.rows).toEqual([]);
    expect(logs).toHaveReceivedCommandTimes(StartQueryCommand, 2);
  });

  test.each<QueryStatus>(['Failed', 'Cancelled', 'Timeout'])(
    'fails when the query ends %s',
    async (status) => {
      logs.on(StartQueryCommand).resolves({ queryId: 'q-4' });
      logs.on(GetQueryResultsCommand).resolves({ status });
      await expect(
        runQuery(client, { name: 'latest-errors', logGroupNames: ['/a'], sinceInMillis: 1, sleep: noSleep }),
      ).rejects.toThrow(new RegExp(`ended with status ${status}`));
    },
  );

  test('stops the query and fails when it outlasts --timeout', async () => {
    let t = NOW;
    logs.on(StartQueryCommand).resolves({ queryId: 'q-5' });
    logs.on(GetQueryResultsCommand).resolves({ status: 'Running' });
    logs.on(StopQueryCommand).resolves({ success: true });
    const running = runQuery(client, {
      name: 'latest-errors',
      logGroupNames: ['/a'],
      sinceInMillis: 1,
      timeoutInMillis: 5000,
      pollIntervalInMillis: 1000,
      now: () => t,
      sleep: (ms) => {
        t += ms;
        return Promise.resolve();
      },
    });
    await expect(running).rejects.toThrow(QueryFailedError);
    await expect(running).rejects.toThrow(/still not complete after 5 s; raise --timeout/);
    expect(logs).toHaveReceivedCommandWith(StopQueryCommand, { queryId: 'q-5' });
  });
});

describe('kfek query --name <built-in> without --log-group', () => {
  /** Runs the CLI in-process with captured output and no AWS endpoint variables of the machine. */
  async function cli(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const code = await run(argv, {
      stdout: { write: (text: string) => ((stdout += text), true) },
      stderr: { write: (text: string) => ((stderr += text), true) },
      env: { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' },
    });
    return { code, stdout, stderr };
  }

  test.each([
    {
      why: 'the default profile (sandbox) of cdk.json',
      argv: ['--name', 'errors-by-15m', '--since', '1h'],
      groups: ['/kfek/sandbox/app'],
    },
    {
      why: 'the profile --profile names',
      argv: ['--name', 'latest-errors', '--profile', 'production'],
      groups: ['/kfek/production/app'],
    },
    {
      why: '--log-group, which wins over the profile',
      argv: ['--name', 'latest-errors', '--log-group', '/mine'],
      groups: ['/mine'],
    },
  ])('runs on the log groups of $why', async ({ argv, groups }) => {
    // GIVEN
    logs.on(StartQueryCommand).resolves({ queryId: 'q-p' });
    logs.on(GetQueryResultsCommand).resolves({ status: 'Complete', results: [] });
    // WHEN
    const result = await cli(['query', ...argv]);
    // THEN
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(logs).toHaveReceivedCommandWith(StartQueryCommand, { logGroupNames: groups });
    expect(result.stdout).toContain(` on ${groups.join(', ')}`);
  });

  test('fails when --profile names no profile of cdk.json', async () => {
    // WHEN
    const result = await cli(['query', '--name', 'errors-by-15m', '--profile', 'nope']);
    // THEN
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /unknown config profile "nope": cdk.json defines "sandbox".*--profile NAME/,
    );
    expect(logs).toHaveReceivedCommandTimes(StartQueryCommand, 0);
  });
});
