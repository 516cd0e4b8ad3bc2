import { resolveConfig } from '../../../core/config';
import type { LogEvent, ReconcileGroup } from '../../../core/reconcile/model';
import { TransformPlanner } from '../../../core/reconcile/planner';
import { groupSource } from '../../../core/reconcile/model';
import { buildEnvelopes } from '../../../core/logs/envelopes';
import { documentIdFor } from '../../../core/contracts/document-id';
import { CDK_JSON_CONTEXT } from '../../helpers/app';

const teams = resolveConfig(CDK_JSON_CONTEXT, 'teams');
const planner = new TransformPlanner({ routes: teams.routes, defaultStem: teams.delivery.indexPrefix });

const group = (logGroup: string): ReconcileGroup => ({
  logGroup,
  owner: '123456789012',
  filterPattern: '',
  subscriptionFilters: ['kfek-to-raw-stream'],
});

let clock = Date.UTC(2026, 10, 27, 10, 0, 0);
const event = (id: string, message: string, logStream = 's1'): LogEvent => ({
  id,
  timestamp: (clock += 10),
  message,
  logStream,
});

describe('TransformPlanner: the transform itself decides', () => {
  test("a route's drop rule, multi-line join and index stem", () => {
    // GIVEN the teams profile's payments route: drops "GET /health", joins Java stack traces
    const events = [
      event('1', 'GET /health 200'),
      event('2', 'Exception in thread "main" java.lang.IllegalStateException: boom'),
      event('3', '\tat com.example.Pay.charge(Pay.java:42)'),
      event('4', '\tat com.example.Main.main(Main.java:7)'),
      event('5', '{"level":"INFO","message":"paid","orderId":7}'),
      event('6', '\tat com.example.Other.x(Other.java:1)', 's2'),
    ];

    // WHEN
    const plans = planner.plan(group('/kfek/teams/payments'), events);

    // THEN
    expect(plans).toEqual([
      { kind: 'dropped', rule: 'health-checks' },
      { kind: 'document', stem: 'payments', joined: 2 },
      { kind: 'joined', into: '2' },
      { kind: 'joined', into: '2' },
      { kind: 'document', stem: 'payments', joined: 0 },
      // A continuation line that starts its envelope (its own log stream) has a document of its own.
      { kind: 'document', stem: 'payments', joined: 0 },
    ]);
  });

  test('a field drop rule reads the parsed event; a group no route matches goes to the default indices', () => {
    const debug = planner.plan(group('/kfek/teams/search'), [
      event('a', '{"level":"DEBUG","message":"cache miss"}'),
      event('b', '{"level":"INFO","message":"query ok"}'),
    ]);
    expect(debug).toEqual([
      { kind: 'dropped', rule: 'debug' },
      { kind: 'document', stem: 'search', joined: 0 },
    ]);
    expect(planner.plan(group('/kfek/teams/app'), [event('c', 'GET /health 200')])).toEqual([
      { kind: 'document', stem: 'logs', joined: 0 },
    ]);
  });

  test('the lines of a dropped trace are dropped by the rule its first line met', () => {
    // GIVEN a Java trace whose first line meets the payments route's health-check rule
    const events = [
      event('h1', 'GET /health failed'),
      event('h2', '\tat com.example.Health.check(Health.java:3)'),
      event('h3', '\tat com.example.Main.main(Main.java:7)'),
    ];

    // WHEN
    const plans = planner.plan(group('/kfek/teams/payments'), events);

    // THEN the continuation lines went with it (alone, neither meets the rule)
    expect(plans).toEqual([
      { kind: 'dropped', rule: 'health-checks' },
      { kind: 'dropped', rule: 'health-checks' },
      { kind: 'dropped', rule: 'health-checks' },
    ]);
  });

  test('the document ids of a raw record are those the ingest pipeline gives the documents the transform makes', () => {
    // GIVEN one record of a dropped, a joined and a kept event
    const source = group('/kfek/teams/payments');
    const events = [
      event('d', 'GET /health 200'),
      event('k', 'Exception in thread "main" java.lang.IllegalStateException: boom'),
      event('j', '\tat com.example.Pay.charge(Pay.java:42)'),
    ];
    const [record] = buildEnvelopes(groupSource(source), events).records;

    // WHEN / THEN only the kept event has a document of its own
    expect(planner.documentIdsOf(record.data)).toEqual([documentIdFor(source.logGroup, 's1', 'k')]);
    expect(planner.documentIdsOf(Buffer.from('not gzip'))).toEqual([]);
  });
});
