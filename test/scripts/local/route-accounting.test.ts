/**
 * npm start's count of events the routes' drop rules kept out and lines their multi-line rules joined
 * (scripts/local/route-accounting.ts): the transform itself decides, with the profile's routes, one envelope per
 * PutLogEvents call as CloudWatch Logs sends them.
 */
import { routeAccounting } from '../../../scripts/local/route-accounting';
import type { RouteProcessing, TransformRoute } from '../../../core/contracts/routes';

const route = (processing: Partial<RouteProcessing>): TransformRoute => ({
  name: 'search',
  match: { logGroup: '/kfek/teams/search' },
  staticFields: {},
  processing: { drop: [], ...processing },
});
const sent = (logGroupName: string, message: string, putAt = 0, logStreamName = 's') => ({
  logGroupName,
  logStreamName,
  timestamp: 1_795_564_800_000,
  message,
  putAt,
});

test('counts each rule that dropped an event of its route, and nothing of other log groups', () => {
  // GIVEN
  const events = [
    sent('/kfek/teams/search', '{"level":"DEBUG","message":"a"}'),
    sent('/kfek/teams/search', '{"level":"INFO","message":"b"}'),
    sent('/kfek/teams/search', 'GET /health 200'),
    sent('/kfek/teams/other', '{"level":"DEBUG","message":"c"}'),
  ];
  const routes = [
    route({
      drop: [
        { name: 'debug', field: 'level', fieldPattern: '^DEBUG$' },
        { name: 'health', messagePattern: '^GET /health' },
      ],
    }),
  ];

  // WHEN / THEN
  expect(routeAccounting(events, routes, '123456789012')).toEqual({
    droppedByRule: { debug: 1, health: 1 },
    joinedLines: 0,
  });
});

test('counts the lines a multi-line rule joined, within one PutLogEvents call only, and a dropped trace line by line', () => {
  // GIVEN two traces in one call, one trace cut by a call boundary, and a dropped trace
  const trace = (putAt: number, first = 'ERROR boom', stream = 's') => [
    sent('/kfek/teams/search', first, putAt, stream),
    sent('/kfek/teams/search', '\tat a.B.c(B.java:1)', putAt, stream),
    sent('/kfek/teams/search', '\tat a.B.d(B.java:2)', putAt, stream),
  ];
  const [head, ...rest] = trace(2);
  const events = [
    ...trace(1),
    ...trace(1, 'ERROR again'),
    head,
    // The same log stream's next call: its lines start a new envelope, so they cannot join `head`.
    ...rest.map((e) => ({ ...e, putAt: 3 })),
    ...trace(4, 'GET /health failed', 'other-stream'),
  ];
  const routes = [
    route({ multiline: { mode: 'java' }, drop: [{ name: 'health', messagePattern: '^GET /health' }] }),
  ];

  // WHEN
  const accounting = routeAccounting(events, routes, '123456789012');

  // THEN 2 + 2 lines joined in the first call, 1 (the second line joins the first) in the third; 3 dropped
  expect(accounting).toEqual({ droppedByRule: { health: 3 }, joinedLines: 5 });
});

test('is undefined when no route drops or joins anything', () => {
  expect(routeAccounting([sent('/kfek/teams/search', 'x')], [route({})], '123456789012')).toBeUndefined();
});
