import { OpenSearchTargetError, resolveOpenSearchTarget } from '../../../core/opensearch/target';

describe('resolveOpenSearchTarget', () => {
  test.each([
    [{}, 'es', true],
    [{ host: 'search-kfek-abc.eu-west-1.es.amazonaws.com' }, 'es', true],
    [{ host: 'abc123xyz.eu-west-1.aoss.amazonaws.com' }, 'aoss', false],
    [{ host: 'ABC.cn-north-1.AOSS.amazonaws.com.cn' }, 'aoss', false],
    [{ host: '127.0.0.1', kind: 'serverless' as const }, 'aoss', false],
    [{ host: '127.0.0.1', service: 'aoss' }, 'aoss', false],
    [{ host: '127.0.0.1', kind: 'domain' as const, service: 'es' }, 'es', true],
  ])('%j signs for %s (routing %s)', (hints, service, routing) => {
    // WHEN
    const target = resolveOpenSearchTarget(hints);
    // THEN
    expect([target.service, target.routing, target.mustSign]).toEqual([service, routing, !routing]);
  });

  test.each([
    [{ service: 'aos' }, /not a SigV4 service of OpenSearch: pass es .* or aoss/],
    [{ kind: 'serverless' as const, service: 'es' }, /openSearch.kind is serverless; pass --service aoss/],
    [
      { host: 'x.us-east-1.aoss.amazonaws.com', service: 'es' },
      /Serverless collection's endpoint; pass --service aoss/,
    ],
    [{ kind: 'domain' as const, service: 'aoss' }, /openSearch.kind is domain; pass --service es/],
  ])('fails when the hints %j disagree or name no service', (hints, message) => {
    // WHEN / THEN
    expect(() => resolveOpenSearchTarget(hints)).toThrow(OpenSearchTargetError);
    expect(() => resolveOpenSearchTarget(hints)).toThrow(message);
  });
});
