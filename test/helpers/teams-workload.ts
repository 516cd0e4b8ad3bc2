/**
 * The log lines of the teams end-to-end test (test/e2e/serverless-teams.test.ts): what cdk.json's `teams` profile's
 * routes act on, written as real services write them (the shapes of /work/shared/samples: Powertools JSON lines,
 * Lambda's text lines, access-log health checks, Java and Python stack traces one line per event as a CloudWatch
 * agent without multi-line settings ships them). Secrets are documented test values, none real: a Luhn-valid test
 * card, AWS's example keys, a JWT of {"alg":"HS256"}, RFC 2606/5737 names and addresses.
 */
import type { OutgoingLogEvent } from '../../scripts/local/sender';

export const TEAMS_GROUPS = {
  app: '/kfek/teams/app',
  payments: '/kfek/teams/payments',
  search: '/kfek/teams/search',
} as const;

/** Raw values the payments route masks; none may be stored in a payments index. */
export const PAYMENTS_SECRETS = {
  email: 'jane.doe+billing@example.com',
  card: '4111 1111 1111 1111',
  cardDigits: '4111111111111111',
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
} as const;

/** Raw values the search route masks. */
export const SEARCH_SECRETS = { email: 'ann.lee@example.org', ip: '203.0.113.97' } as const;

/** Values the default route keeps as they are (it masks nothing). */
export const APP_VALUES = { email: 'bob@example.net', ip: '198.51.100.4' } as const;

/** The payments route drops lines with this text (its rule `health-checks`). */
export const HEALTH_CHECK = 'GET /health';

/** One multi-line trace written as one event per line, and the text that names it. */
export interface WrittenTrace {
  readonly group: string;
  readonly marker: string;
  readonly lines: readonly string[];
}

/** What the workload wrote: the events and the traces among them. */
export interface TeamsWorkload {
  readonly events: OutgoingLogEvent[];
  readonly traces: readonly WrittenTrace[];
}

const json = (fields: Record<string, unknown>): string => JSON.stringify(fields);

function paymentsBlock(n: number): { lines: string[]; trace: WrittenTrace } {
  const s = PAYMENTS_SECRETS;
  const marker = `ord-${n}-declined`;
  const trace = [
    `java.lang.IllegalStateException: card declined (${marker})`,
    '\tat com.example.payments.Charge.capture(Charge.java:142)',
    '\tat com.example.payments.ChargeHandler.handleRequest(ChargeHandler.java:57)',
    'Caused by: java.net.SocketTimeoutException: Read timed out',
    '\t... 12 more',
  ];
  return {
    lines: [
      `2026-11-29 16:00:0${n % 10} INFO  [main] c.e.p.Charge - charged ${s.email} card ${s.card} order ord-${n}`,
      json({
        level: 'INFO',
        message: 'token issued',
        service: 'payment',
        authorization: `Bearer ${s.jwt}`,
        correlation_id: `corr-${n}`,
      }),
      `WARN  deploy user rotated aws_access_key_id=${s.accessKeyId} aws_secret_access_key=${s.secretKey}`,
      `10.0.3.${n % 250} - - [29/Nov/2026:16:00:00 +0000] "${HEALTH_CHECK} HTTP/1.1" 200 2 "-" "ELB-HealthChecker/2.0"`,
      `2026-11-29 16:00:0${n % 10} ERROR [main] c.e.p.ChargeHandler - charge ord-${n} failed`,
      ...trace,
    ],
    trace: { group: TEAMS_GROUPS.payments, marker, lines: trace },
  };
}

function searchBlock(n: number): { lines: string[]; trace: WrittenTrace } {
  const s = SEARCH_SECRETS;
  const marker = `shard-${n}-missing`;
  const trace = [
    'Traceback (most recent call last):',
    '  File "/var/task/search/handler.py", line 88, in handle',
    '    results = index.query(q)',
    `KeyError: '${marker}'`,
  ];
  return {
    lines: [
      json({ level: 'INFO', message: `query q-${n} from ${s.ip} by ${s.email}`, took_ms: 12 + n }),
      json({ level: 'DEBUG', message: `cache miss key=q:${n}`, service: 'search' }),
      `[ERROR] 2026-11-29T16:00:00.${String(n).padStart(3, '0')}Z handler failed for q-${n}`,
      ...trace,
    ],
    trace: { group: TEAMS_GROUPS.search, marker, lines: trace },
  };
}

function appBlock(n: number): string[] {
  return [
    `START RequestId: 06e46194-f277-454e-88d3-${String(n).padStart(12, '0')} Version: $LATEST`,
    json({ level: 'INFO', message: `user ${APP_VALUES.email} signed in from ${APP_VALUES.ip}`, n }),
    // The default route has no drop rule: its health checks and DEBUG lines are kept.
    `10.0.9.${n % 250} - - [29/Nov/2026:16:00:00 +0000] "${HEALTH_CHECK} HTTP/1.1" 200 2`,
    json({ level: 'DEBUG', message: `app cache warm ${n}` }),
  ];
}

/**
 * `blocks` blocks of each group's lines in each of `streams` streams per group, named after the run (the runner's
 * summary finds a run's documents by its stream names, workload.ts), one second apart, ending a minute before `now`.
 * Each stream stays within one PutLogEvents call (the sender's 500 events), so a trace is never split across
 * envelopes, as a CloudWatch agent flushing every few seconds keeps it.
 */
export function teamsWorkload(runId: string, now: number, blocks: number, streams: number): TeamsWorkload {
  const perStream: { group: string; lines: string[] }[] = [];
  const traces: WrittenTrace[] = [];
  for (let s = 0; s < streams; s += 1) {
    const payments: string[] = [];
    const search: string[] = [];
    const app: string[] = [];
    for (let b = 0; b < blocks; b += 1) {
      const n = s * blocks + b;
      const p = paymentsBlock(n);
      const q = searchBlock(n);
      payments.push(...p.lines);
      search.push(...q.lines);
      app.push(...appBlock(n));
      traces.push(p.trace, q.trace);
    }
    perStream.push(
      { group: TEAMS_GROUPS.payments, lines: payments },
      { group: TEAMS_GROUPS.search, lines: search },
      { group: TEAMS_GROUPS.app, lines: app },
    );
  }
  const events = perStream.flatMap(({ group, lines }, i) => {
    const stream = `kfek-local/${runId}/${Math.floor(i / 3)}`;
    const start = now - 60_000 - lines.length * 1000;
    return lines.map((message, k) => ({
      logGroupName: group,
      logStreamName: stream,
      timestamp: start + k * 1000,
      message,
    }));
  });
  return { events, traces };
}
