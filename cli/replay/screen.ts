/**
 * What replay checks before it sends anything, so that one bad kept object never stops the others:
 *
 * - the stream an object names: replay reads only the raw stream and re-sends only its records. An object that
 *   names another stream (another account's, another mapping's on-failure record written to kfek's bucket) is not
 *   read, not re-sent and never deleted, whatever its sequence numbers or records say;
 * - every record against Kinesis' per-record limits (core/kinesis/limits.ts): one record outside them fails a whole
 *   PutRecords call, so it is left out and reported, and the other records go.
 *
 * Pure: the raw stream's ARN is looked up by the caller.
 */
import { recordProblem } from '../../core/kinesis/limits';
import { type KeptItem, type KeptKind, type ReplayRecord, TARGET_OF } from '../../core/kept/model';

/** A chosen item, or some of its records, that replay left out on purpose; what it holds stays where it is. */
export interface Skipped {
  readonly location: string;
  readonly kind: KeptKind;
  readonly message: string;
}

/** The raw stream replay puts to: as given (`--raw-stream`, or the profile's), and its ARN when known. */
export interface RawStreamIdentity {
  readonly given: string;
  /** @default - unknown: a stream named by ARN is compared by its name */
  readonly arn?: string;
}

const isArn = (stream: string): boolean => stream.startsWith('arn:');
const nameOf = (stream: string): string =>
  isArn(stream) ? stream.slice(stream.lastIndexOf('/') + 1) : stream;

/** True when `named` (an ARN or a name, as a kept object says it) is the raw stream. */
export function isRawStream(named: string, raw: RawStreamIdentity): boolean {
  const arn = raw.arn ?? (isArn(raw.given) ? raw.given : undefined);
  if (isArn(named) && arn !== undefined) return named === arn;
  return nameOf(named) === nameOf(arn ?? raw.given);
}

/** True when the raw stream's ARN is needed to judge the streams `items` name. */
export function needsRawStreamArn(items: readonly KeptItem[], raw: string): boolean {
  return (
    !isArn(raw) &&
    items.some((item) => TARGET_OF[item.kind] === 'raw' && (item.namedStreams ?? []).some(isArn))
  );
}

/** The first stream `item` names that is not the raw stream, for an item that goes back to the raw stream. */
export function foreignStreamOf(item: KeptItem, raw: RawStreamIdentity): string | undefined {
  if (TARGET_OF[item.kind] !== 'raw') return undefined;
  return (item.namedStreams ?? []).find((stream) => !isRawStream(stream, raw));
}

function foreignStreamSkip(item: KeptItem, stream: string, raw: RawStreamIdentity): Skipped {
  return {
    location: item.container.location,
    kind: item.kind,
    message:
      `${item.container.location} names the stream ${stream}, not the raw stream ${raw.arn ?? raw.given}: replay ` +
      'reads and re-sends only the raw stream, so it was not read, not re-sent and is kept',
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

/** A chosen item that passed the screen, with the records of it that fit (none yet for a range: read later). */
export interface ScreenedItem {
  readonly item: KeptItem;
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
 * Screens the chosen items: one that names another stream than `raw` is skipped whole (when `raw` is known: a dry
 * run without a raw stream cannot tell), records that do not fit Kinesis are left out of theirs.
 */
export function screenItems(
  chosen: readonly KeptItem[],
  raw: RawStreamIdentity | undefined,
): { screened: ScreenedItem[]; skipped: Skipped[]; incomplete: Set<KeptItem> } {
  const skipped: Skipped[] = [];
  const incomplete = new Set<KeptItem>();
  const screened: ScreenedItem[] = [];
  for (const item of chosen) {
    const foreign = raw === undefined ? undefined : foreignStreamOf(item, raw);
    if (foreign !== undefined) {
      skipped.push(foreignStreamSkip(item, foreign, raw!));
    } else if (item.content.type === 'range') {
      screened.push({ item });
    } else {
      const fit = screenRecords(item, item.content.records, skipped, incomplete);
      if (fit.length > 0) screened.push({ item, records: fit });
    }
  }
  return { screened, skipped, incomplete };
}
