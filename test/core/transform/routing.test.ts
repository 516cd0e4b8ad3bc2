/**
 * Routes in the transform (issue 24, docs/teams-and-routes.md): every document of a route carries the route's name
 * under `kfek.route` (the ingest pipeline sends it to the route's indices) and the route's static fields, which an
 * app cannot overwrite; documents of no route carry neither.
 */
import { RouteTable } from '../../../core/transform/routing';
import { transformRecord } from '../../../core/transform/transform';
import type { LogDocument } from '../../../core/transform/types';
import type { TransformRoute } from '../../../core/contracts/routes';
import { MAX_KINESIS_RECORD_BYTES } from '../../../core/contracts/aws-limits';
import { encodeEnvelope, makeEnvelope } from '../../helpers/cloudwatch';

const ROUTES: TransformRoute[] = [
  {
    name: 'payments',
    match: { logGroupPrefix: '/app/payments/' },
    staticFields: { team: 'payments', environment: 'prod' },
    processing: { drop: [] },
  },
  {
    name: 'search',
    match: { logGroupPattern: '/app/search-*', account: ['222233334444'] },
    staticFields: { team: 'search' },
    processing: { drop: [] },
  },
];
const table = new RouteTable(ROUTES);

type Doc = LogDocument & Record<string, unknown>;

function documents(
  envelope: Parameters<typeof makeEnvelope>[0],
  events: Array<{ message: string; extractedFields?: Record<string, string> }>,
  options: { partitionKeyInDocument?: boolean } = {},
): Doc[] {
  const base = makeEnvelope(envelope, events);
  const withExtracted = {
    ...base,
    logEvents: base.logEvents.map((e, i) =>
      events[i].extractedFields === undefined ? e : { ...e, extractedFields: events[i].extractedFields },
    ),
  };
  const outcome = transformRecord(encodeEnvelope(withExtracted), { routes: table, ...options });
  if (outcome.kind !== 'data') throw new Error(outcome.kind);
  return outcome.documents.map((d) => JSON.parse(d.json) as Doc);
}

describe('routes in the transform', () => {
  it('marks the documents of a route and adds its static fields', () => {
    const [text, json] = documents({ logGroup: '/app/payments/api' }, [
      { message: 'paid' },
      { message: '{"message":"paid","amount":1.0}' },
    ]);
    expect(text).toMatchObject({ team: 'payments', environment: 'prod', kfek: { route: 'payments' } });
    expect(json).toMatchObject({ amount: 1, team: 'payments', kfek: { route: 'payments' } });
  });

  it('marks the stem the route was chosen for beside its name, every document shape (issue 39)', () => {
    // GIVEN routes as the transform's environment gives them: each with its index stem
    const stems = new RouteTable(ROUTES.map((r) => ({ ...r, indexStem: `team-${r.name}` })));
    const envelope = makeEnvelope({ logGroup: '/app/payments/api' }, [
      { message: 'paid' },
      { message: '{"message":"paid","amount":1.0}' },
      { message: '{"message":"paid","kfek":{"route":"search","stem":"team-search"}}' },
    ]);

    // WHEN
    const outcome = transformRecord(encodeEnvelope(envelope), { routes: stems });

    // THEN the pipeline can tell team-payments' documents from those of a later route named payments
    if (outcome.kind !== 'data') throw new Error(outcome.kind);
    const [text, json, forged] = outcome.documents.map((d) => JSON.parse(d.json) as Doc);
    expect(text.kfek).toEqual({ route: 'payments', stem: 'team-payments' });
    expect(json.kfek).toEqual({ route: 'payments', stem: 'team-payments' });
    // An app cannot choose the stem: its own kfek is kept under kfek.collisions.
    expect(forged.kfek).toEqual({
      route: 'payments',
      stem: 'team-payments',
      collisions: { kfek: { route: 'search', stem: 'team-search' } },
    });
  });

  it('leaves documents of no route unmarked (the default route)', () => {
    const [doc] = documents({ logGroup: '/app/other' }, [{ message: '{"message":"m","team":"mine"}' }]);
    expect(doc.kfek).toBeUndefined();
    expect(doc.team).toBe('mine');
  });

  it('matches every criterion: the search route needs its account too', () => {
    const [other] = documents({ logGroup: '/app/search-api', owner: '999988887777' }, [{ message: 'm' }]);
    const [own] = documents({ logGroup: '/app/search-api', owner: '222233334444' }, [{ message: 'm' }]);
    expect(other.kfek).toBeUndefined();
    expect(own.kfek).toEqual({ route: 'search' });
  });

  it('routes a centralized event by its own @aws.account', () => {
    const [doc] = documents({ logGroup: '/app/search-api', owner: '999988887777' }, [
      { message: 'm', extractedFields: { '@aws.account': '222233334444' } },
    ]);
    expect(doc.kfek).toEqual({ route: 'search' });
  });

  it('an app cannot change its team: its own team (or team.x) is kept under kfek.collisions', () => {
    const [doc] = documents({ logGroup: '/app/payments/api' }, [
      { message: '{"message":"m","team":"search","team.name":"x","kfek":{"route":"search"},"n":2.50}' },
    ]);
    expect(doc.team).toBe('payments');
    expect(doc.kfek).toEqual({
      route: 'payments',
      collisions: { team: 'search', 'team.name': 'x', kfek: { route: 'search' } },
    });
  });

  it('a document cut to fit a record keeps its route and static fields', () => {
    const [doc] = documents({ logGroup: '/app/payments/api' }, [
      { message: 'x'.repeat(MAX_KINESIS_RECORD_BYTES) },
    ]);
    expect(doc).toMatchObject({ team: 'payments', kfek: { route: 'payments', truncated: true } });
  });

  it('a Pipes item carries its route beside its partition key', () => {
    const [doc] = documents({ logGroup: '/app/payments/api' }, [{ message: 'm' }], {
      partitionKeyInDocument: true,
    });
    expect(doc.kfek).toEqual({ route: 'payments', partitionKey: expect.stringMatching(/^[\w-]{43}$/) });
  });

  it('answers from memory for a log group it has seen, and the first route in order wins', () => {
    const overlapping = new RouteTable([
      { name: 'first', match: { logGroupPrefix: '/app/' }, staticFields: {}, processing: { drop: [] } },
      { name: 'second', match: { logGroup: '/app/a' }, staticFields: {}, processing: { drop: [] } },
    ]);
    expect(overlapping.routeOf({ logGroup: '/app/a' })?.route.name).toBe('first');
    expect(overlapping.routeOf({ logGroup: '/app/a' })).toBe(overlapping.routeOf({ logGroup: '/app/a' }));
    expect(new RouteTable([]).routeOf({ logGroup: '/app/a' })).toBeUndefined();
  });
});
