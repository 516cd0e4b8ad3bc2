/**
 * The route move the retired-route tests share (issue 39's example): team A's `orders` route on stem `a-orders`,
 * then a profile that gives `orders` to team C's `c-orders` while team A's indices are kept, and a transform
 * document marked with a (route, stem) pair as a transform marks it.
 */
import {
  type OpenSearchSpec,
  type OpenSearchSpecInput,
  resolveOpenSearchSpec,
} from '../../core/opensearch/spec';
import type { RouteSpecInput } from '../../core/opensearch/route-spec';

const PAYMENTS: RouteSpecInput = { name: 'payments', indexStem: 'payments', retentionDays: 7 };

/**
 * Team A's profile and team C's after the move, on `base`; `alsoInTeamC` adds routes to team C's profile (a
 * collection's writer may write only the profile's families: team A's stem kept under another route name).
 */
export function ordersMove(
  base: OpenSearchSpecInput,
  alsoInTeamC: readonly RouteSpecInput[] = [],
): { readonly teamA: OpenSearchSpec; readonly teamC: OpenSearchSpec } {
  return {
    teamA: resolveOpenSearchSpec({
      ...base,
      routes: [{ name: 'orders', indexStem: 'a-orders', retentionDays: 7 }, PAYMENTS],
    }),
    teamC: resolveOpenSearchSpec({
      ...base,
      routes: [{ name: 'orders', indexStem: 'c-orders', retentionDays: 7 }, PAYMENTS, ...alsoInTeamC],
    }),
  };
}

/** A transform document marked `kfek.route = orders`, `kfek.stem = stem`, arrived at `arrival`. */
export function markedOrder(id: string, stem: string, arrival: number): string {
  return JSON.stringify({
    '@timestamp': new Date(arrival).toISOString(),
    message: `order ${id}`,
    cloudwatch: { id, logGroup: '/team-a/orders', logStream: 's1', owner: '123456789012' },
    kfek: { route: 'orders', stem, arrival },
  });
}
