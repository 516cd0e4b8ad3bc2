/**
 * What replay checks before it sends anything, so that one bad kept object never stops the others:
 *
 * - the stream an object names: replay reads and re-sends only this profile's raw stream, and the events stream for a
 *   batch the direct path's indexer gave up on. An object that names another stream (another account's, another
 *   mapping's on-failure record written to kfek's bucket) is not read, not re-sent and never deleted, whatever its
 *   sequence numbers or records say;
 * - every record against Kinesis' per-record limits (core/kinesis/limits.ts): one record outside them fails a whole
 *   PutRecords call, so it is left out and reported, and the other records go.
 *
 * Pure: the streams' ARNs are looked up by the caller.
 */
import { recordProblem } from '../../core/kinesis/limits';
import {
  type KeptItem,
  type KeptKind,
  type ReplayRecord,
  type ReplayTarget,
  TARGET_OF,
} from '../../core/kept/model';

/** A chosen item, or some of its records, that replay left out on purpose; what it holds stays where it is. */
export interface Skipped {
  readonly location: string;
  readonly kind: KeptKind;
  readonly message: string;
}

/** A stream replay puts to: as given (`--raw-stream`, or the profile's), and its ARN when known. */
export interface StreamIdentity {
  readonly given: string;
  /** @default - unknown: a stream named by ARN is compared by its name */
  readonly arn?: string;
}

/** The raw and the events stream replay may put to, when known. */
export interface TargetStreams {
  readonly raw?: StreamIdentity;
  readonly events?: StreamIdentity;
}

const isArn = (stream: string): boolean => stream.startsWith('arn:');
const nameOf = (stream: string): string =>
  isArn(stream) ? stream.slice(stream.lastIndexOf('/') + 1) : stream;

/** True when `named` (an ARN or a name, as a kept object says it) is `stream`: an ARN is compared whole. */
export function isStream(named: string, stream: StreamIdentity): boolean {
  const arn = stream.arn ?? (isArn(stream.given) ? stream.given : undefined);
  if (isArn(named) && arn !== undefined) return named === arn;
  return nameOf(named) === nameOf(arn ?? stream.given);
}

/** True when the ARN of `given` is needed to judge the streams `items` name. */
export function needsStreamArn(items: readonly KeptItem[], given: string): boolean {
  return !isArn(given) && items.some((item) => (item.namedStreams ?? []).some(isArn));
}

/**
 * Where `item` goes back to, or the stream it names that is neither of `streams`. A discarded batch that names only
 * the events stream (the direct path's indexer gave it up) goes back to the events stream; any other raw-kind item
 * goes to the raw stream only when everything it names is the raw stream (or it names nothing). Documents go to the
 * events stream. Without a known raw stream (a dry run) nothing can be judged, and raw kinds go to the raw stream.
 */
export function targetOf(
  item: KeptItem,
  streams: TargetStreams,
): { readonly target: ReplayTarget } | { readonly foreign: string } {
  const named = item.namedStreams ?? [];
  const { raw, events } = streams;
  if (TARGET_OF[item.kind] === 'events') return { target: 'events' };
  if (
    item.kind === 'discarded-batch' &&
    events !== undefined &&
    named.length > 0 &&
    named.every((stream) => isStream(stream, events))
  ) {
    return { target: 'events' };
  }
  const others = raw === undefined ? [] : named.filter((stream) => !isStream(stream, raw));
  if (others.length === 0) return { target: 'raw' };
  const neither = others.find(
    (s) => item.kind !== 'discarded-batch' || events === undefined || !isStream(s, events),
  );
  return { foreign: neither ?? `${named.join(' and ')} (a batch comes from one stream)` };
}

function foreignStreamSkip(item: KeptItem, stream: string, streams: TargetStreams): Skipped {
  const identity = (s: StreamIdentity | undefined): string =>
    s === undefined ? '(none given)' : (s.arn ?? s.given);
  const events = item.kind === 'discarded-batch' ? ` nor the events stream ${identity(streams.events)}` : '';
  return {
    location: item.container.location,
    kind: item.kind,
    message:
      `${item.container.location} names the stream ${stream}, not the raw stream ${identity(streams.raw)}${events}: ` +
      'replay reads and re-sends only those, so it was not read, not re-sent and is kept',
  };
}

/**
 * The records of `item` that fit Kinesis, and a {@link Skipped} for each one that does not (numbered within the
 * object when it holds more than one).
 */
function fittingRecords(
  item: KeptItem,
  records: readonly ReplayRecord[],
): { fit: ReplayRecord[]; skipped: Skipped[] } {
  const fit: ReplayRecord[] = [];
  const skipped: Skipped[] = [];
  records.forEach((record, index) => {
    const problem = recordProblem(record);
    if (problem === undefined) {
      fit.push(record);
      return;
    }
    const which = records.length > 1 ? ` record ${index + 1} of ${records.length}:` : '';
    skipped.push({
      location: item.container.location,
      kind: item.kind,
      message: `${item.container.location}:${which} ${problem}; not re-sent, kept`,
    });
  });
  return { fit, skipped };
}

/**
 * A chosen item that passed the screen, the stream it goes back to, and the records of it that fit (none yet for a
 * range: read later, from `target`).
 */
export interface ScreenedItem {
  readonly item: KeptItem;
  readonly target: ReplayTarget;
  readonly records?: readonly ReplayRecord[];
}

/**
 * The records of `item` that fit Kinesis; each one that does not is added to `skipped`, and `item` then to
 * `incomplete` (it is never deleted).
 */
export function screenRecords(
  item: KeptItem,
  records: readonly ReplayRecord[],
  skipped: Skipped[],
  incomplete: Set<KeptItem>,
): ReplayRecord[] {
  const result = fittingRecords(item, records);
  if (result.skipped.length > 0) {
    skipped.push(...result.skipped);
    incomplete.add(item);
  }
  return result.fit;
}

/**
 * Screens the chosen items: one that names a stream other than the one it would go back to is skipped whole (when
 * the raw stream is known: a dry run without it cannot tell), records that do not fit Kinesis are left out of theirs.
 */
export function screenItems(
  chosen: readonly KeptItem[],
  streams: TargetStreams,
): { screened: ScreenedItem[]; skipped: Skipped[]; incomplete: Set<KeptItem> } {
  const skipped: Skipped[] = [];
  const incomplete = new Set<KeptItem>();
  const screened: ScreenedItem[] = [];
  for (const item of chosen) {
    const where = targetOf(item, streams);
    if ('foreign' in where) {
      skipped.push(foreignStreamSkip(item, where.foreign, streams));
    } else if (item.content.type === 'range') {
      screened.push({ item, target: where.target });
    } else {
      const fit = screenRecords(item, item.content.records, skipped, incomplete);
      if (fit.length > 0) screened.push({ item, target: where.target, records: fit });
    }
  }
  return { screened, skipped, incomplete };
}
