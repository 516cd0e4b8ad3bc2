/**
 * npm start's count of events the routes' drop rules kept out (scripts/local/route-accounting.ts): the transform
 * itself decides, with the profile's routes.
 */
import { droppedByRules } from '../../../scripts/local/route-accounting';
import type { TransformRoute } from '../../../core/contracts/routes';

const route = (drop: TransformRoute['processing']['drop']): TransformRoute => ({
  name: 'search',
  match: { logGroup: '/kfek/teams/search' },
  staticFields: {},
  processing: { drop },
});
const sent = (logGroupName: string, message: string) => ({
  logGroupName,
  logStreamName: 's',
  timestamp: 1_795_564_800_000,
  message,
  putAt: 0,
});

test('counts each rule that dropped an event of its route, and nothing of other log groups', () => {
  const events = [
    sent('/kfek/teams/search', '{"level":"DEBUG","message":"a"}'),
    sent('/kfek/teams/search', '{"level":"INFO","message":"b"}'),
    sent('/kfek/teams/search', 'GET /health 200'),
    sent('/kfek/teams/other', '{"level":"DEBUG","message":"c"}'),
  ];
  const routes = [
    route([
      { name: 'debug', field: 'level', fieldPattern: '^DEBUG$' },
      { name: 'health', messagePattern: '^GET /health' },
    ]),
  ];
  expect(droppedByRules(events, routes, '123456789012')).toEqual({ debug: 1, health: 1 });
});

test('is undefined when no route drops anything', () => {
  expect(droppedByRules([sent('/kfek/teams/search', 'x')], [route([])], '123456789012')).toBeUndefined();
});
