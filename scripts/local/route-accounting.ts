/**
 * What the routes' processing did to a local run's events (docs/teams-and-routes.md): an event a drop rule drops is
 * counted by the transform (`DroppedEvents`), never indexed, and a continuation line a multi-line rule joins is
 * searchable only inside the event before it, so `npm start`'s summary must count both or call them missing. Locally
 * the transform's metrics are off, so the sent events are put through the transform itself, one envelope per
 * PutLogEvents call as CloudWatch Logs sends them (a join never crosses an envelope), with the profile's routes, and
 * its decisions (core/transform/decisions.ts) say what became of each event: the same code decides, nothing is
 * re-implemented or re-parsed here.
 */
import { gzipSync } from 'node:zlib';
import { RouteTable } from '../../core/transform/routing';
import { transformRecord } from '../../core/transform/transform';
import type { TransformRoute } from '../../core/contracts/routes';
import type { SentLogEvent } from './sender';

/** Events each drop rule kept out (a dropped trace's lines each count), and the lines joined into another event. */
export interface RouteAccounting {
  readonly droppedByRule: Readonly<Record<string, number>>;
  readonly joinedLines: number;
}

/** What the routes did to `sent`; undefined when no route drops or joins anything. */
export function routeAccounting(
  sent: readonly SentLogEvent[],
  routes: readonly TransformRoute[],
  owner: string,
): RouteAccounting | undefined {
  if (!routes.some((r) => r.processing.drop.length > 0 || r.processing.multiline !== undefined))
    return undefined;
  const table = new RouteTable(routes);
  const droppedByRule: Record<string, number> = {};
  let joinedLines = 0;
  for (const call of putLogEventsCalls(sent)) {
    const envelope = {
      messageType: 'DATA_MESSAGE',
      owner,
      logGroup: call[0].logGroupName,
      logStream: call[0].logStreamName,
      subscriptionFilters: [],
      logEvents: call.map((event, i) => ({
        id: String(i),
        timestamp: event.timestamp,
        message: event.message,
      })),
    };
    const outcome = transformRecord(gzipSync(JSON.stringify(envelope)), { routes: table });
    if (outcome.kind !== 'data') continue;
    for (const decision of outcome.decisions ?? []) {
      if (decision.kind === 'joined') joinedLines += 1;
      else if (decision.kind === 'dropped')
        droppedByRule[decision.rule] = (droppedByRule[decision.rule] ?? 0) + 1;
    }
  }
  return { droppedByRule, joinedLines };
}

/**
 * The events of each PutLogEvents call, in the order sent: a run of events of one log stream sent at one `putAt`
 * (the sender sends each call's events together and interleaves the streams call by call).
 */
function putLogEventsCalls(sent: readonly SentLogEvent[]): SentLogEvent[][] {
  const calls: SentLogEvent[][] = [];
  let current: SentLogEvent[] = [];
  for (const event of sent) {
    const head = current[0];
    if (
      head !== undefined &&
      (head.logGroupName !== event.logGroupName ||
        head.logStreamName !== event.logStreamName ||
        head.putAt !== event.putAt)
    ) {
      calls.push(current);
      current = [];
    }
    current.push(event);
  }
  if (current.length > 0) calls.push(current);
  return calls;
}
