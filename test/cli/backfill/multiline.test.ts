/**
 * Backfill reproduces live for a multi-line route (issue 29): however FilterLogEvents pages a log group (a page may end
 * inside a stack trace) and however envelopes fill up, the transform joins the backfilled events into the same
 * documents the live subscription's envelopes gave, under the same ids; an interrupted run resumed gives them too.
 */
import { gunzipSync } from 'node:zlib';
import { type BackfillJob, type CheckpointState, NO_COUNTS } from '../../../core/backfill/model';
import { type GroupPlan, runBackfill } from '../../../cli/backfill/run';
import { createContinuation } from '../../../core/contracts/multiline';
import type { MultilineSettings } from '../../../core/contracts/routes';
import { RouteTable } from '../../../core/transform/routing';
import { transformRecord } from '../../../core/transform/transform';
import { FakeLogs, MemoryCheckpoint, MemoryKept } from '../../helpers/backfill-fakes';
import { FakeClock, FakeKinesis } from '../../helpers/replay-fakes';
import { buildEnvelopes } from '../../../core/logs/envelopes';
import type { HistoricLogEvent } from '../../../core/logs/model';

const GROUP = '/kfek/test/java';
const OWNER = '123456789012';
const START = Date.UTC(2026, 10, 20, 0, 0, 0);
const JOB: BackfillJob = {
  logGroups: [GROUP],
  since: new Date(START),
  until: new Date(START + 3_600_000),
  rawStream: 'kfek-test-raw',
};

function state(): CheckpointState {
  return {
    version: 1,
    job: JOB,
    typed: { since: JOB.since.toISOString() },
    groups: {},
    counts: NO_COUNTS,
    runs: 1,
    startedAt: JOB.since.toISOString(),
    updatedAt: JOB.since.toISOString(),
  };
}

/** Log lines of `traces` Java errors (a header and `frames` frames each) over `streams` streams, interleaved. */
function javaHistory(traces: number, frames: number, streams: number): HistoricLogEvent[] {
  const events: HistoricLogEvent[] = [];
  let id = 0;
  for (let t = 0; t < traces; t++) {
    const logStream = `stream-${t % streams}`;
    const lines = [
      `ERROR request ${t} failed`,
      ...Array.from({ length: frames }, (_, f) => `\tat com.example.C${f}.run(C.java:${f})`),
    ];
    for (const message of lines) {
      events.push({ id: String(++id), timestamp: START + id, message, logStream });
    }
  }
  return events;
}

function routesFor(settings: MultilineSettings): RouteTable {
  return new RouteTable([
    {
      name: 'java',
      match: { logGroup: GROUP },
      staticFields: {},
      processing: { drop: [], multiline: settings },
    },
  ]);
}

/** The documents the transform makes of base64/gzip records, by id (a later copy overwrites, as in OpenSearch). */
function documents(records: readonly Uint8Array[], routes: RouteTable): Map<string, string> {
  const byId = new Map<string, string>();
  for (const data of records) {
    const outcome = transformRecord(Buffer.from(data).toString('base64'), { routes });
    if (outcome.kind !== 'data') throw new Error(outcome.kind);
    for (const doc of outcome.documents) {
      const parsed = JSON.parse(doc.json) as { message: string; cloudwatch: { id: string } };
      byId.set(parsed.cloudwatch.id, parsed.message);
    }
  }
  return byId;
}

/** What live delivered: each stream's events in one envelope. */
function live(events: readonly HistoricLogEvent[], routes: RouteTable): Map<string, string> {
  const { records } = buildEnvelopes({ logGroup: GROUP, owner: OWNER, subscriptionFilters: ['f'] }, events, {
    maxEvents: 1_000_000,
    maxJsonBytes: 1_000_000_000,
  });
  return documents(
    records.map((r) => r.data),
    routes,
  );
}

describe.each<[string, MultilineSettings]>([
  ['java', { mode: 'java' }],
  ['pattern', { mode: 'pattern', pattern: '^\\tat ' }],
])('backfill of a multi-line route (%s)', (_, settings) => {
  const routes = routesFor(settings);
  const plan: GroupPlan = {
    source: { logGroup: GROUP, owner: OWNER, subscriptionFilters: ['f'] },
    continuation: createContinuation(settings),
  };

  test.each([7, 13, 50])('gives the live documents when pages hold %i events', async (pageSize) => {
    // GIVEN traces over three streams, read back in small pages
    const events = javaHistory(40, 6, 3);
    const logs = new FakeLogs().addGroup(GROUP, events, OWNER);
    logs.pageSize = pageSize;
    const kinesis = new FakeKinesis();
    // WHEN backfilled
    await runBackfill({ job: JOB, groups: [plan] }, state(), {
      logs,
      kinesis,
      checkpoint: new MemoryCheckpoint(),
      kept: new MemoryKept(),
      clock: new FakeClock(),
    });
    // THEN the transform makes the same documents of it as of the live envelopes
    const sent = (kinesis.put.get(JOB.rawStream) ?? []).map((r) => r.data);
    expect(documents(sent, routes)).toEqual(live(events, routes));
  });

  test('never ends an envelope inside a trace when an envelope fills up', () => {
    const events = javaHistory(30, 8, 1);
    const { records } = buildEnvelopes(
      { logGroup: GROUP, owner: OWNER, subscriptionFilters: ['f'] },
      events,
      {
        maxEvents: 20,
        continuation: createContinuation(settings),
      },
    );
    for (const record of records) {
      const envelope = JSON.parse(gunzipSync(record.data).toString('utf8')) as {
        logEvents: { message: string }[];
      };
      expect(envelope.logEvents[0].message).toMatch(/^ERROR/);
    }
    expect(
      documents(
        records.map((r) => r.data),
        routes,
      ),
    ).toEqual(live(events, routes));
  });

  test('an interrupted run, resumed, still gives the live documents', async () => {
    const events = javaHistory(30, 5, 2);
    const logs = new FakeLogs().addGroup(GROUP, events, OWNER);
    logs.pageSize = 9;
    const kinesis = new FakeKinesis();
    const checkpoint = new MemoryCheckpoint();
    const stop = new AbortController();
    const deps = {
      logs,
      kinesis,
      checkpoint,
      kept: new MemoryKept(),
      clock: new FakeClock(),
    };
    // WHEN stopped after three pages, then resumed from the checkpoint
    let pages = 0;
    const first = await runBackfill({ job: JOB, groups: [plan] }, state(), {
      ...deps,
      signal: stop.signal,
      onProgress: () => {
        if (++pages === 3) stop.abort();
      },
    });
    expect(first.interrupted).toBe(true);
    const saved = checkpoint.state;
    if (saved === undefined) throw new Error('no checkpoint');
    await runBackfill({ job: JOB, groups: [plan] }, saved, deps);
    // THEN every document is live's (copies sent twice overwrite themselves)
    const sent = (kinesis.put.get(JOB.rawStream) ?? []).map((r) => r.data);
    expect(documents(sent, routes)).toEqual(live(events, routes));
  });
});
