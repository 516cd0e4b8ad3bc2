/**
 * Multi-line join of a route (docs/teams-and-routes.md "Multi-line events"): an app that writes a stack trace line by
 * line sends one CloudWatch event per line; the continuation lines are joined into the event before them, so one
 * exception is one document. Decided per event: a line joins only an event of the same route and the same source
 * account (centralized log streams carry several accounts' events), under its own route's rule, and only within one
 * envelope (one log stream, in order). A join never grows past what one record holds: the line that would not fit
 * starts the next group of the same join, which becomes the join's next part (processing.ts numbers the parts), so no
 * line is ever cut off. Pure.
 */
import { stripOneNewline, type Continuation } from '../../core/contracts/multiline';
import type { CloudWatchLogEvent } from './decode';
import { escapedLength } from './serialize';

/** One join: the groups of lines it was split into share it. */
export interface JoinChain {
  /** The id of the join's first event (`kfek.partOf` of its parts). */
  readonly id: string;
}

/** Lines that make one document: the first event's, and the continuation lines joined into it. */
export interface JoinGroup {
  /** The events of the lines, in order; the document keeps the first one's id and timestamp. */
  readonly events: CloudWatchLogEvent[];
  /** The lines, each without its one trailing newline. */
  readonly lines: string[];
  readonly chain: JoinChain;
}

/** Which sequence an event belongs to, and its sequence's rule. */
export interface JoinKey {
  /** Route and source account: lines join only within one. */
  readonly key: string;
  /** The route's continuation rule; undefined when its route joins nothing. */
  readonly continuation?: Continuation;
}

/** A group still taking lines. */
interface Open extends JoinGroup {
  /** JSON-escaped bytes of the lines joined with `\n`; -1 until a line is joined (most events have none). */
  bytes: number;
  /** Most bytes the joined message may take (`roomOf`); -1 until a line is joined. */
  room: number;
}

/**
 * The events of one envelope as groups of lines: continuation lines joined into the last group of their sequence.
 * `roomOf(event)` says how many JSON-escaped bytes a joined message starting with `event` may take in one record.
 */
export function joinEvents(
  events: readonly CloudWatchLogEvent[],
  keyOf: (event: CloudWatchLogEvent) => JoinKey,
  roomOf: (event: CloudWatchLogEvent) => number,
): JoinGroup[] {
  const out: Open[] = [];
  const last = new Map<string, Open>();
  const deciders = new Map<string, (line: string) => boolean>();
  for (const event of events) {
    const { key, continuation } = keyOf(event);
    let continues = false;
    if (continuation !== undefined) {
      let decide = deciders.get(key);
      if (decide === undefined) {
        decide = continuation();
        deciders.set(key, decide);
      }
      // Asked of every line of the sequence, the first too: a rule may keep state (a traceback begins).
      continues = decide(event.message);
    }
    const line = stripOneNewline(event.message);
    const open = continues ? last.get(key) : undefined;
    if (open !== undefined) {
      if (open.bytes < 0) {
        open.bytes = escapedLength(open.lines[0]);
        open.room = roomOf(open.events[0]);
      }
      const added = 2 + escapedLength(line); // `\n` is two bytes escaped
      if (open.bytes + added <= open.room) {
        open.lines.push(line);
        open.events.push(event);
        open.bytes += added;
        continue;
      }
    }
    // A line that starts an event, or one that no longer fits its join: it starts a group (of the same join).
    const opened: Open = {
      events: [event],
      lines: [line],
      chain: open?.chain ?? { id: event.id },
      bytes: -1,
      room: -1,
    };
    out.push(opened);
    if (continuation !== undefined) last.set(key, opened);
  }
  return out;
}
