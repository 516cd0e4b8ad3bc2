/**
 * Retention on a SEARCH collection (issue 42, docs/serverless.md): such a collection has no lifecycle policy and no
 * `index.data.retention` (both are for time-series collections), so kfek deletes a route's indices past its
 * retention itself, by name. Pure planning here ({@link expiredIndices}); {@link deleteExpiredIndices} runs the plan
 * over kfek's HTTP port with the two APIs Serverless lists for it, `GET _cat/indices` and `DELETE <index>`.
 *
 * Ownership: an index is kfek's to delete only when its name is exactly what kfek renders for one of the profile's
 * stems (`<stem>` + the rotation's suffix, core/contracts/index-naming.ts `indexNameFor`) and that stem is the longest
 * one covering it (`owningStem`). `logs-backup`, `logs-2026-11-01-restored` or another team's `payments2-...` are
 * never touched, whatever their age.
 */
import { type IndexRotation, indexNameFor, indexPatternFor, owningStem } from '../contracts/index-naming';
import type { OpenSearchHttpClient } from './http';
import { names, requestPath } from './request-path';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** A family of kfek's indices and how long it keeps them. */
export interface RetentionFamily {
  readonly stem: string;
  readonly retentionDays: number;
}

export interface ExpiredIndex {
  readonly index: string;
  readonly stem: string;
  /** When the last event the index's period covers arrived (epoch ms): retention counts from here. */
  readonly periodEnd: number;
}

/** The end of the period `index` names under `rotation`, when its name is exactly `<stem>-<suffix>`; else undefined. */
export function periodEnd(index: string, stem: string, rotation: IndexRotation): number | undefined {
  const suffix = index.slice(stem.length + 1);
  if (!index.startsWith(`${stem}-`)) return undefined;
  const exact = (start: number, end: number): number | undefined =>
    Number.isFinite(start) && indexNameFor(stem, rotation, new Date(start)) === index ? end : undefined;
  switch (rotation) {
    case 'NoRotation':
      return undefined;
    case 'OneHour': {
      const m = /^(\d{4})-(\d{2})-(\d{2})-(\d{2})$/.exec(suffix);
      const start = m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4]) : NaN;
      return exact(start, start + HOUR);
    }
    case 'OneDay': {
      const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(suffix);
      const start = m ? Date.UTC(+m[1], +m[2] - 1, +m[3]) : NaN;
      return exact(start, start + DAY);
    }
    case 'OneMonth': {
      const m = /^(\d{4})-(\d{2})$/.exec(suffix);
      const start = m ? Date.UTC(+m[1], +m[2] - 1, 1) : NaN;
      return m ? exact(start, Date.UTC(+m[1], +m[2], 1)) : undefined;
    }
    case 'OneWeek': {
      // Firehose's week numbers have no closed inverse worth trusting: the last day of the year that renders this
      // name ends the period.
      const m = /^(\d{4})-w\d{2}$/.exec(suffix);
      if (!m) return undefined;
      let last: number | undefined;
      for (let t = Date.UTC(+m[1], 0, 1); t < Date.UTC(+m[1] + 1, 0, 1); t += DAY) {
        if (indexNameFor(stem, rotation, new Date(t)) === index) last = t + DAY;
      }
      return last;
    }
  }
}

/** kfek's indices among `indices` whose period ended more than their family's retention before `now`. */
export function expiredIndices(input: {
  readonly indices: readonly string[];
  readonly families: readonly RetentionFamily[];
  readonly rotation: IndexRotation;
  readonly now: number;
}): ExpiredIndex[] {
  const byStem = new Map(input.families.map((f) => [f.stem, f.retentionDays]));
  const out: ExpiredIndex[] = [];
  for (const index of input.indices) {
    const stem = owningStem(index, byStem.keys());
    if (stem === undefined) continue;
    const end = periodEnd(index, stem, input.rotation);
    const days = byStem.get(stem);
    if (end !== undefined && days !== undefined && end + days * DAY <= input.now) {
      out.push({ index, stem, periodEnd: end });
    }
  }
  return out.sort((a, b) => a.index.localeCompare(b.index));
}

export interface RetentionRun {
  readonly deleted: readonly string[];
  /** Indices that could not be deleted, with OpenSearch's answer: the caller alarms on any. */
  readonly failed: readonly { readonly index: string; readonly reason: string }[];
}

/**
 * Lists the indices of kfek's patterns (`GET _cat/indices/<pattern>,...`), deletes kfek's expired ones one by one, and
 * reports what it could not delete.
 */
export async function deleteExpiredIndices(
  client: OpenSearchHttpClient,
  plan: {
    readonly families: readonly RetentionFamily[];
    readonly rotation: IndexRotation;
    readonly now: number;
  },
): Promise<RetentionRun> {
  // Only kfek's patterns are listed: the function's data access policy describes those and no other index.
  const patterns = [...new Set(plan.families.map((f) => indexPatternFor(f.stem, plan.rotation)))];
  const listing = requestPath(['_cat', 'indices', names('index pattern', patterns)], {
    format: 'json',
    h: 'index',
  });
  const listed = await client.request({ method: 'GET', path: listing });
  if (listed.status !== 200 || !Array.isArray(listed.body)) {
    return {
      deleted: [],
      failed: [{ index: '*', reason: `GET ${listing}: HTTP ${listed.status} ${listed.text.slice(0, 300)}` }],
    };
  }
  const indices = (listed.body as { index: string }[]).map((row) => row.index);
  const deleted: string[] = [];
  const failed: { index: string; reason: string }[] = [];
  for (const { index } of expiredIndices({ ...plan, indices })) {
    try {
      const answer = await client.request({ method: 'DELETE', path: `/${encodeURIComponent(index)}` });
      if (answer.status === 200) deleted.push(index);
      else failed.push({ index, reason: `HTTP ${answer.status} ${answer.text.slice(0, 300)}` });
    } catch (error) {
      // One index out of reach does not keep the others from being deleted.
      failed.push({ index, reason: (error as Error).message });
    }
  }
  return { deleted, failed };
}
