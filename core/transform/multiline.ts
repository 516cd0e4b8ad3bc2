/**
 * Multi-line join of a route (docs/teams-and-routes.md "Multi-line events"): an app that writes a stack trace line by
 * line sends one CloudWatch event per line; the continuation lines are joined into the event before them, so one
 * exception is one document. Decided per event: a line joins only an event of the same route and the same source
 * account (centralized log streams carry several accounts' events), under its own route's rule, and only within one
 * envelope (one log stream, in order). A join never grows past what one record holds: the line that would not fit
 * starts the next group of the same join, which becomes the join's next part (processing.ts numbers the parts), so no
 * line is ever cut off. Pure.
 */
import { stripOneNewline, type Continuation } from '../contracts/multiline';
import type { CloudWatchLogEvent } from './decode';
import { escapedLength } from './serialize';

/** One join whose lines became several documents: its groups share it (processing.ts counts the parts here). */
export interface JoinChain {
  /** The id of the join's first event (`kfek.partOf` of its parts). */
  readonly id: string;
  /** Documents the join became (set by the caller). */
  parts: number;
  /** Of those, how many are numbered so far (set by the caller). */
  written: number;
}

/** The lines that make one document: the first event's, and the continuation lines joined into it. */
export interface JoinGroup {
  /** The event whose id and timestamp the document keeps. */
  readonly first: CloudWatchLogEvent;
  /** Its position in the envelope's events. */
  readonly at: number;
  /** The events whose lines were joined into it, in order; undefined for most. */
  readonly joined: CloudWatchLogEvent[] | undefined;
  /** Their positions in the envelope's events, in the same order; undefined when none was joined. */
  readonly joinedAt: number[] | undefined;
  /** Set when the join these lines belong to did not fit one record: the other groups of the join share it. */
  readonly chain: JoinChain | undefined;
}

/** Which sequence an event belongs to, and its sequence's rule. */
export interface JoinKey {
  /** Route and source account: lines join only within one. */
  readonly key: string;
  /** The route's continuation rule; undefined when its route joins nothing. */
  readonly continuation?: Continuation;
}

/** A group still taking lines. */
interface Open {
  readonly first: CloudWatchLogEvent;
  readonly at: number;
  joined: CloudWatchLogEvent[] | undefined;
  joinedAt: number[] | undefined;
  chain: JoinChain | undefined;
  /** JSON-escaped bytes of the lines joined with `\n`; -1 until a line is joined (most events have none). */
  bytes: number;
  /** Most bytes the joined message may take (`roomOf`); -1 until a line is joined. */
  room: number;
}

/** The lines of a group, each without its one trailing newline. */
export function groupLines(group: JoinGroup): string[] {
  const lines = [stripOneNewline(group.first.message)];
  if (group.joined !== undefined)
    for (const event of group.joined) lines.push(stripOneNewline(event.message));
  return lines;
}

/**
 * The events of one envelope as groups of lines: continuation lines joined into the last group of their sequence.
 * `roomOf(event, i)` says how many JSON-escaped bytes a joined message starting with `event` (the envelope's `i`th)
 * may take in one record; `keyOf(event, i)` which sequence the `i`th event belongs to.
 */
export function joinEvents(
  events: readonly CloudWatchLogEvent[],
  keyOf: (event: CloudWatchLogEvent, i: number) => JoinKey,
  roomOf: (event: CloudWatchLogEvent, i: number) => number,
): JoinGroup[] {
  const out: Open[] = [];
  const last = new Map<string, Open>();
  const deciders = new Map<string, (line: string) => boolean>();
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    const { key, continuation } = keyOf(event, i);
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
    const open = continues ? last.get(key) : undefined;
    if (open !== undefined) {
      if (open.bytes < 0) {
        open.bytes = escapedLength(stripOneNewline(open.first.message));
        open.room = roomOf(open.first, open.at);
      }
      const added = 2 + escapedLength(stripOneNewline(event.message)); // `\n` is two bytes escaped
      if (open.bytes + added <= open.room) {
        (open.joined ??= []).push(event);
        (open.joinedAt ??= []).push(i);
        open.bytes += added;
        continue;
      }
      // The line does not fit: it starts the next group of the same join.
      open.chain ??= { id: open.first.id, parts: 0, written: 0 };
    }
    const opened: Open = {
      first: event,
      at: i,
      joined: undefined,
      joinedAt: undefined,
      chain: open?.chain,
      bytes: -1,
      room: -1,
    };
    out.push(opened);
    if (continuation !== undefined) last.set(key, opened);
  }
  return out;
}
