/** Choosing what to re-send (kind, time range, reason, limit) and summarizing what is kept, for replay. Pure. */
import { KEPT_KINDS, type KeptItem, type KeptKind, recordCountOf } from './model';

export interface ReplayFilter {
  /** Only items kept at or after this time (items without a time are kept out of a time-filtered set). */
  readonly since?: Date;
  readonly until?: Date;
  /** Only items whose reason contains this text (case-insensitive). */
  readonly reason?: string;
  /** At most this many items, oldest first. */
  readonly limit?: number;
}

/** The items to re-send, oldest first, so a limited replay starts where the failures started. */
export function selectItems(items: readonly KeptItem[], filter: ReplayFilter): KeptItem[] {
  const reason = filter.reason?.toLowerCase();
  const chosen = items.filter((item) => {
    if (filter.since !== undefined && (item.at === undefined || item.at < filter.since)) return false;
    if (filter.until !== undefined && (item.at === undefined || item.at > filter.until)) return false;
    return reason === undefined || item.reason.toLowerCase().includes(reason);
  });
  const time = (item: KeptItem): number => item.at?.getTime() ?? Number.POSITIVE_INFINITY;
  chosen.sort((a, b) => time(a) - time(b));
  return filter.limit === undefined ? chosen : chosen.slice(0, filter.limit);
}

export interface KindSummary {
  readonly kind: KeptKind;
  readonly items: number;
  /** Records known from the data (for ranges: the metadata's batch size). */
  readonly records: number;
  /** Ranges that must be read back from the raw stream. */
  readonly ranges: number;
  /** Bytes of the objects, files and messages that hold them (each counted once). */
  readonly storedBytes: number;
  readonly first?: Date;
  readonly last?: Date;
  /** Most frequent reasons first. */
  readonly reasons: readonly { readonly reason: string; readonly count: number }[];
}

export function summarize(items: readonly KeptItem[]): KindSummary[] {
  return KEPT_KINDS.map((kind) => {
    const mine = items.filter((item) => item.kind === kind);
    const containers = new Map(mine.map((item) => [item.container.location, item.container.sizeBytes]));
    const times = mine.flatMap((item) => (item.at === undefined ? [] : [item.at.getTime()]));
    const reasons = new Map<string, number>();
    for (const item of mine) reasons.set(item.reason, (reasons.get(item.reason) ?? 0) + 1);
    return {
      kind,
      items: mine.length,
      records: mine.reduce((sum, item) => sum + recordCountOf(item), 0),
      ranges: mine.filter((item) => item.content.type === 'range').length,
      storedBytes: [...containers.values()].reduce((sum, size) => sum + size, 0),
      ...(times.length > 0
        ? { first: new Date(Math.min(...times)), last: new Date(Math.max(...times)) }
        : {}),
      reasons: [...reasons.entries()]
        .map(([reason, count]) => ({ reason, count }))
        .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
    };
  });
}
