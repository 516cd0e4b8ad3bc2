/**
 * The replay itself, over ports: list what is kept, choose, and (unless a dry run) resolve each chosen item to
 * records (read back from the raw stream when only metadata was kept), put them on the stream they belong to, and
 * with `--delete-after` delete the objects, files and messages that were fully re-sent.
 */
import { translateAwsError } from '../../core/aws/retry';
import { type Collected, collectKept, type KeptSources, ownerOf } from '../../core/kept/collect';
import { MissingTargetError, PutRecordsFailedError, RangeExpiredError, ReplayError } from './errors';
import {
  type KeptItem,
  type KeptKind,
  recordCountOf,
  type ReplayRecord,
  type ReplayTarget,
} from '../../core/kept/model';
import { type KindSummary, type ReplayFilter, selectItems, summarize } from '../../core/kept/select';
import type { KinesisPort } from '../../core/kinesis/ports';
import { readRange } from './read-range';
import {
  needsStreamArn,
  type ScreenedItem,
  screenItems,
  screenRecords,
  type Skipped,
  type StreamIdentity,
  type TargetStreams,
} from './screen';
import { RecordSender } from '../../core/kinesis/sender';

export interface ReplayPlan {
  readonly kinds: readonly KeptKind[];
  readonly filter: ReplayFilter;
  readonly dryRun: boolean;
  readonly deleteAfter: boolean;
  readonly ratePerSecond?: number;
  /** Stream names or ARNs to re-send to. */
  readonly targets: { readonly raw?: string; readonly events?: string };
}

export interface ReplayPorts {
  readonly sources: KeptSources;
  /** Absent for a dry run that needs no stream. */
  readonly kinesis?: KinesisPort;
  /**
   * The ARN of a stream given by name (Kinesis DescribeStreamSummary), to tell the raw stream from a same-named
   * stream of another account or region that a kept object names.
   * @default - a raw stream given by name is compared by name
   */
  readonly streamArnOf?: (stream: string) => Promise<string>;
  readonly now: () => number;
  readonly sleep: (millis: number) => Promise<void>;
  readonly random?: () => number;
  /** Progress of the re-sending: records put so far of `total`. */
  readonly onProgress?: (put: number, total: number, note: string) => void;
  /** Called once the total is known, before the first record is put. */
  readonly onStart?: (total: number) => void;
}

/** An item that was chosen but not re-sent, and why. */
export interface Unreplayed {
  readonly location: string;
  readonly kind: KeptKind;
  readonly message: string;
}

export interface Sendable {
  readonly items: number;
  /** Raw records for the raw stream (a range counts its metadata's batch size) and documents for the events one. */
  readonly rawRecords: number;
  readonly documents: number;
}

export interface ReplayReport {
  readonly dryRun: boolean;
  /** Everything kept, per kind. */
  readonly kept: readonly KindSummary[];
  /** What the filter chose, per kind. */
  readonly chosen: readonly KindSummary[];
  /** What of it is (or, in a dry run, would be) sent: the chosen items less what was skipped. */
  readonly sendable: Sendable;
  /** Unreadable objects, lines and messages: reported and kept. */
  readonly problems: Collected['problems'];
  /** The stream each chosen discarded batch that passed the screen goes (or, in a dry run, would go) back to. */
  readonly batches: readonly { readonly location: string; readonly target: ReplayTarget }[];
  /** Chosen items, or records of them, left out because they name another stream or do not fit Kinesis. */
  readonly skipped: readonly Skipped[];
  /** Records put per target, with the stream. */
  readonly sent: readonly {
    readonly target: ReplayTarget;
    readonly stream: string;
    readonly records: number;
    readonly items: number;
  }[];
  readonly retries: number;
  readonly unreplayed: readonly Unreplayed[];
  /** Locations deleted after a full re-send (`--delete-after`). */
  readonly deleted: readonly string[];
}

export async function runReplay(plan: ReplayPlan, ports: ReplayPorts): Promise<ReplayReport> {
  const collected = await collectKept(ports.sources, plan.kinds);
  const chosen = selectItems(collected.items, plan.filter);
  const streams: TargetStreams = {
    raw: await streamIdentity(plan.targets.raw, chosen, ports),
    // Only a discarded batch can name the events stream (the indexer's): no lookup for the others.
    events: await streamIdentity(
      plan.targets.events,
      chosen.filter((item) => item.kind === 'discarded-batch'),
      ports,
    ),
  };
  // Every chosen item is screened before anything is read or sent, in a dry run as in a real one.
  const { screened, skipped, incomplete } = screenItems(chosen, streams);
  const base = {
    dryRun: plan.dryRun,
    kept: summarize(collected.items),
    chosen: summarize(chosen),
    sendable: sendableOf(screened),
    batches: screened
      .filter(({ item }) => item.kind === 'discarded-batch')
      .map(({ item, target }) => ({ location: item.container.location, target })),
    problems: collected.problems,
    skipped,
  };
  if (plan.dryRun || screened.length === 0) {
    return { ...base, sent: [], retries: 0, unreplayed: [], deleted: [] };
  }
  const kinesis = ports.kinesis;
  const targets = (['raw', 'events'] as const).filter((t) => screened.some(({ target }) => target === t));
  for (const target of targets) if (plan.targets[target] === undefined) throw new MissingTargetError(target);
  if (kinesis === undefined) throw new ReplayError('no Kinesis client to re-send with');

  // Resolve every item first, so the progress bar knows its total and expired ranges are reported together.
  const unreplayed: Unreplayed[] = [];
  const screen = { skipped, incomplete, unreplayed };
  const resolved = await resolveRecords(screened, { kinesis, targets: plan.targets, ports, screen });
  const total = resolved.reduce((sum, r) => sum + r.records.length, 0);
  ports.onStart?.(total);
  const sender = new RecordSender({
    kinesis,
    now: ports.now,
    sleep: ports.sleep,
    ...(ports.random !== undefined ? { random: ports.random } : {}),
    ...(plan.ratePerSecond !== undefined ? { ratePerSecond: plan.ratePerSecond } : {}),
    onProgress: (put, note) => ports.onProgress?.(put, total, note),
  });
  const sent: ReplayReport['sent'][number][] = [];
  const fullySent = new Set<KeptItem>();
  let retries = 0;
  for (const target of targets) {
    const stream = plan.targets[target]!;
    const mine = resolved.filter((r) => r.target === target);
    const result = await sender.send(
      stream,
      mine.flatMap((r) => r.records),
    );
    retries += result.retries;
    const items = accountSent(mine, result, { stream, fullySent, screen });
    sent.push({ target, stream, records: result.accepted.filter(Boolean).length, items });
  }
  const deleted = plan.deleteAfter ? await deleteFullySent(collected, chosen, fullySent, ports.sources) : [];
  return { ...base, sent, retries, unreplayed, deleted };
}

/** What the screen set aside, and the items that were chosen but not re-sent. */
interface ScreenOutcome {
  readonly skipped: Skipped[];
  readonly incomplete: Set<KeptItem>;
  readonly unreplayed: Unreplayed[];
}

interface Resolved {
  readonly item: KeptItem;
  readonly target: ReplayTarget;
  readonly records: readonly ReplayRecord[];
}

/** Each screened item with its records; a kept range is read back from its target stream (never another one). */
async function resolveRecords(
  screened: readonly ScreenedItem[],
  context: {
    readonly kinesis: KinesisPort;
    readonly targets: ReplayPlan['targets'];
    readonly ports: ReplayPorts;
    readonly screen: ScreenOutcome;
  },
): Promise<Resolved[]> {
  const { kinesis, targets, ports, screen } = context;
  const resolved: Resolved[] = [];
  for (const { item, target, records } of screened) {
    if (records !== undefined) {
      resolved.push({ item, target, records });
      continue;
    }
    if (item.content.type !== 'range') continue;
    try {
      // Always the stream given for the target, never a stream the kept object names (screened above).
      const stream = targets[target]!;
      const read = await readRange(kinesis, stream, item.content.range, item.container.location, {
        now: ports.now,
        sleep: ports.sleep,
        ...(ports.random !== undefined ? { random: ports.random } : {}),
      });
      resolved.push({
        item,
        target,
        records: screenRecords(item, read, screen.skipped, screen.incomplete),
      });
    } catch (error) {
      if (!(error instanceof RangeExpiredError) && !(error instanceof ReplayError)) throw error;
      screen.unreplayed.push({ location: item.container.location, kind: item.kind, message: error.message });
    }
  }
  return resolved;
}

/**
 * Which of `mine` (sent in this order) Kinesis took whole: counted, and added to `fullySent` unless the screen left
 * records of them out; the others become unreplayed with the error. Returns the items taken.
 */
function accountSent(
  mine: readonly Resolved[],
  result: { readonly accepted: readonly boolean[]; readonly lastErrorCode?: string },
  context: { readonly stream: string; readonly fullySent: Set<KeptItem>; readonly screen: ScreenOutcome },
): number {
  const { stream, fullySent, screen } = context;
  let at = 0;
  let items = 0;
  for (const { item, records: own } of mine) {
    const refused = result.accepted.slice(at, at + own.length).filter((ok) => !ok).length;
    at += own.length;
    if (refused === 0) {
      // An item with records left out by the screen had the rest sent, but is not wholly re-sent.
      if (!screen.incomplete.has(item)) fullySent.add(item);
      items += 1;
    } else {
      screen.unreplayed.push({
        location: item.container.location,
        kind: item.kind,
        message: new PutRecordsFailedError(stream, refused, result.lastErrorCode ?? 'unknown').message,
      });
    }
  }
  return items;
}

/** What a run would send: items, and records per target (a range counts its metadata's batch size). */
function sendableOf(screened: readonly ScreenedItem[]): Sendable {
  const count = (target: ReplayTarget): number =>
    screened
      .filter((s) => s.target === target)
      .reduce((sum, { item, records }) => sum + (records?.length ?? recordCountOf(item)), 0);
  return { items: screened.length, rawRecords: count('raw'), documents: count('events') };
}

/**
 * A stream replay puts to, with its ARN when the kept objects name streams by ARN and it was given by name (a
 * profile's stream, or `--raw-stream NAME`): Kinesis DescribeStreamSummary says which stream that name is in this
 * account and region, so a same-named stream of another account is told apart.
 */
async function streamIdentity(
  given: string | undefined,
  chosen: readonly KeptItem[],
  ports: ReplayPorts,
): Promise<StreamIdentity | undefined> {
  if (given === undefined) return undefined;
  if (ports.streamArnOf === undefined || !needsStreamArn(chosen, given)) return { given };
  try {
    return { given, arn: await ports.streamArnOf(given) };
  } catch (error) {
    const detail = translateAwsError(error, `DescribeStreamSummary of ${given}`).message;
    throw new ReplayError(
      `cannot tell whether the streams kept objects name are ${given}: ${detail} Check the name and --region, or ` +
        'pass --raw-stream / --events-stream as its ARN',
      { cause: error },
    );
  }
}

/**
 * Deletes a container (object, file, message) only when every item read from it was chosen and re-sent, and
 * nothing in it failed to parse: a failed-documents object holds many documents, and a partial replay keeps it.
 */
async function deleteFullySent(
  collected: Collected,
  chosen: readonly KeptItem[],
  fullySent: ReadonlySet<KeptItem>,
  sources: KeptSources,
): Promise<string[]> {
  const byContainer = new Map<string, KeptItem[]>();
  for (const item of collected.items) {
    const list = byContainer.get(item.container.location) ?? [];
    list.push(item);
    byContainer.set(item.container.location, list);
  }
  const chosenSet = new Set(chosen);
  const deleted: string[] = [];
  for (const [location, items] of byContainer) {
    if (!items.every((i) => chosenSet.has(i) && fullySent.has(i))) continue;
    // A failed-documents object's unreadable lines are reported as `<location> line N`.
    if (
      collected.problems.some((p) => p.location === location || p.location.startsWith(`${location} line `))
    ) {
      continue;
    }
    const first = items[0];
    const owner = ownerOf(sources, first.kind);
    if (owner === undefined) continue;
    await owner.delete(first.container.handle);
    deleted.push(location);
  }
  return deleted;
}
