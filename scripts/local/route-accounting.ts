/**
 * What the routes' drop rules kept out of a local run (docs/teams-and-routes.md): an event a drop rule drops is
 * counted by the transform (`DroppedEvents`), never indexed, so `npm start`'s summary must count it too or call it
 * missing. Locally the transform's metrics are off, so each sent event is put through the transform itself, alone
 * in its envelope, with the profile's routes: the same code decides, nothing is re-implemented here. Alone in its
 * envelope an event joins nothing: continuation lines a multi-line rule joins are not counted here (a run whose
 * generator writes them would show them as not searchable).
 */
import { gzipSync } from 'node:zlib';
import { RouteTable } from '../../core/transform/routing';
import { transformRecord } from '../../core/transform/transform';
import type { TransformRoute } from '../../core/contracts/routes';
import type { SentLogEvent } from './sender';

/** Events each drop rule dropped; undefined when no route has drop rules. */
export function droppedByRules(
  sent: readonly SentLogEvent[],
  routes: readonly TransformRoute[],
  owner: string,
): Record<string, number> | undefined {
  if (!routes.some((r) => r.processing.drop.length > 0)) return undefined;
  const table = new RouteTable(routes);
  const dropped: Record<string, number> = {};
  for (const [i, event] of sent.entries()) {
    const envelope = {
      messageType: 'DATA_MESSAGE',
      owner,
      logGroup: event.logGroupName,
      logStream: event.logStreamName,
      subscriptionFilters: [],
      logEvents: [{ id: String(i), timestamp: event.timestamp, message: event.message }],
    };
    const outcome = transformRecord(gzipSync(JSON.stringify(envelope)), { routes: table });
    if (outcome.kind !== 'data') continue;
    for (const [rule, n] of Object.entries(outcome.processing?.droppedByRule ?? {})) {
      dropped[rule] = (dropped[rule] ?? 0) + n;
    }
  }
  return dropped;
}
