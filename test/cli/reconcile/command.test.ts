/**
 * `kfek reconcile`'s command line and report. Bad input ends with one line starting `kfek:` and exit 2 before any
 * call is made (the sweep in test/cli/bad-input-sweep.test.ts tries every option with wrong values); the report
 * renders what the engine decided. The command against moto and a real node is test/e2e/reconcile.test.ts.
 */
import { run } from '../../../cli/main';
import { formatReconcile } from '../../../cli/reconcile/format';
import type { ReconcileRun } from '../../../cli/reconcile/service';
import { NO_STATES } from '../../../core/reconcile/model';

async function reconcile(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(['reconcile', ...args], {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: {},
  });
  return { code, stdout, stderr };
}

const CLOSED = ['--endpoint', 'http://127.0.0.1:2', '--opensearch', 'http://127.0.0.1:2'];

describe('kfek reconcile: bad input', () => {
  test.each([
    [['--opensearch', 'http://127.0.0.1:2'], /--since is required/],
    [['--since', '1h'], /--opensearch URL is required/],
    [['--since', '1h', '--until', '2h', ...CLOSED], /--since .* is not before --until/],
    [['--since', 'yesterday', ...CLOSED], /--since "yesterday" is neither a duration/],
    [
      ['--since', '1h', '--count', 'all', ...CLOSED],
      /--count "all" is neither insights \(Logs Insights, on AWS\) nor scan/,
    ],
    [['--since', '1h', '--profile', 'nope', ...CLOSED], /unknown config profile "nope"/],
    [
      ['--since', '1h', '--local-dir', '/no/such/dir', ...CLOSED],
      /--local-dir \/no\/such\/dir .* is not a folder/,
    ],
  ])('fails with one line and exit 2: %j', async (args, message) => {
    const { code, stdout, stderr } = await reconcile(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
    expect(stderr).toMatch(/^kfek: /);
  });

  test('--help lists every option with its default', async () => {
    const { code, stdout } = await reconcile(['--help']);
    expect(code).toBe(0);
    for (const option of [
      '--since',
      '--until',
      '--lag',
      '--heal',
      '--count',
      '--bucket',
      '--local-dir',
      '--json',
    ]) {
      expect(stdout).toContain(option);
    }
  });
});

describe('kfek reconcile: the report', () => {
  const base: ReconcileRun = {
    window: {
      since: '2026-11-27T09:00:00.000Z',
      until: '2026-11-27T10:00:00.000Z',
      judgedUntil: '2026-11-27T09:45:00.000Z',
      lagInMillis: 900_000,
    },
    countedWith: 'insights',
    groups: [
      {
        logGroup: '/app/orders',
        minutes: 45,
        exactMinutes: 1,
        cloudWatchEvents: 1002,
        openSearchEvents: 1000,
        states: { ...NO_STATES, searchable: 999, dropped: 1, missing: 1, kept: 1 },
        droppedByRule: { 'health-checks': 1 },
        events: [
          {
            logStream: 's1',
            eventId: '42',
            timestamp: Date.UTC(2026, 10, 27, 9, 7, 3),
            state: 'missing',
            documentId: 'abc',
          },
          {
            logStream: 's1',
            eventId: '43',
            timestamp: Date.UTC(2026, 10, 27, 9, 7, 4),
            state: 'kept',
            documentId: 'def',
            kept: { kind: 'failed-document', location: 's3://b/failed-documents/x.gz' },
          },
        ],
        truncated: false,
      },
    ],
    totals: { ...NO_STATES, searchable: 999, dropped: 1, missing: 1, kept: 1 },
    requests: { cloudWatch: 3, openSearch: 3, kept: 2, kinesis: 0 },
    exactTier: { events: 3, durationInMillis: 12 },
    durationInMillis: 2500,
    unreadableKept: [],
    ignoredTemplates: [],
  };

  test('a row per log group, the events that are not searchable worst first, what it cost, the result', () => {
    const text = formatReconcile(base);
    expect(text).toMatch(
      /judged up to 2026-11-27T09:45:00Z \(lag 15\.0 min\), CloudWatch counted with Logs Insights/,
    );
    expect(text).toMatch(/\/app\/orders\s+45\s+1\s+1002\s+1000\s+999\s+1\s+0\s+0\s+0\s+1\s+1\s+missing/);
    expect(text.indexOf('missing (1):')).toBeLessThan(text.indexOf('kept (1):'));
    expect(text).toContain('s1  2026-11-27T09:07:03.000Z  event 42  document abc');
    expect(text).toContain('failed-document s3://b/failed-documents/x.gz');
    expect(text).toMatch(/requests: CloudWatch Logs 3, OpenSearch 3, kept data 2, Kinesis 0/);
    expect(text).toMatch(/result: 1 event\(s\) missing: --heal sends them through the raw stream$/);
  });

  test('a group the heal refused is listed with why its events stay missing', () => {
    const reason =
      "/app/orders: live put its documents up to 2026-11-27T09:07:03.000Z in orders-old's indices";
    const text = formatReconcile({
      ...base,
      groups: [{ ...base.groups[0], healRefused: reason }],
      heal: { sent: 0, healed: 0, notSent: 0, durationInMillis: 10 },
    });
    expect(text).toContain(
      `not healed (sent again, their events would not take the route live gave them):\n  ${reason}`,
    );
    expect(text).toMatch(/result: 1 event\(s\) missing after the heal$/);
  });

  test('nothing missing, but kept: says so and points at kfek replay', () => {
    const text = formatReconcile({
      ...base,
      totals: { ...base.totals, missing: 0 },
      heal: { sent: 1, healed: 1, notSent: 0, durationInMillis: 4000 },
    });
    expect(text).toMatch(/heal: 1 sent through the raw stream, 1 searchable within 4\.0 s/);
    expect(text).toMatch(
      /result: nothing missing; 1 event\(s\) kept, not searchable: kfek replay re-sends them$/,
    );
  });
});
