/**
 * The `routes` document of kfek's record on a Serverless collection: the (route name, stem) pairs its provisioner
 * served (serverless-provision-routes.ts writes it), read by the indexer (lambda/indexer/routes.ts). Apart from the
 * writer so the indexer's bundle takes only this and the rule (route-table.ts).
 */
import { name as one, requestPath } from './request-path';
import type { RoutePair } from './route-table';

/** The record's document that holds the pairs (beside `objects`, registry.ts). */
export const ROUTES_DOC = 'routes';

/** What the record holds: the pairs and the grace period `routeTableOf` applies to name-only documents. */
export interface RouteRecord {
  readonly pairs: readonly RoutePair[];
  readonly keepRetiredHours: number;
}

/** Where the pairs are read: `GET` it (the indexer's one read, `aoss:ReadDocument` on the record's index). */
export const routeRecordPath = (index: string): string =>
  requestPath([one('index', index), '_doc', ROUTES_DOC]);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The record in a `GET` answer of {@link routeRecordPath}; undefined when the answer holds none of kfek's. */
export function routeRecordFrom(answer: unknown): RouteRecord | undefined {
  if (!isRecord(answer) || answer.found !== true || !isRecord(answer._source)) return undefined;
  const source = answer._source;
  if (!Array.isArray(source.pairs) || typeof source.keepRetiredHours !== 'number') return undefined;
  const pairs: RoutePair[] = [];
  for (const p of source.pairs) {
    if (!isRecord(p) || typeof p.name !== 'string' || typeof p.stem !== 'string') return undefined;
    const at = p.retiredAt;
    if (at !== undefined && at !== null && (typeof at !== 'string' || Number.isNaN(Date.parse(at))))
      return undefined;
    pairs.push({ name: p.name, stem: p.stem, retiredAt: typeof at === 'string' ? at : undefined });
  }
  return { pairs, keepRetiredHours: source.keepRetiredHours };
}
