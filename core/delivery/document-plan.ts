/**
 * What the ingest pipeline (core/opensearch/ingest-pipeline.ts) makes of one events-stream document, computed in
 * TypeScript for kfek's own indexer (direct delivery, issue 41), which sends every document with its `_index`, `_id`
 * and `routing` and runs no pipeline. Each step names the Painless it stands for:
 * - REFUSE_SCRIPT: a document with a top-level `_if_seq_no` or `_if_primary_term` is refused alone, with the
 *   script's reason;
 * - ROUTE_SCRIPT: `kfek.arrival` is removed and moves the document to the index of its arrival's period (only ever
 *   earlier than the index Firehose would name by the events-stream record's arrival, in the same suffix shape:
 *   {@link arrivalIndex}); `kfek.route` and `kfek.stem` go through route-table.ts `routeDecision` (a route's stem,
 *   `kfek.unknownRoute`, or a refusal with the reason); `kfek` is removed when nothing is left under it;
 * - documentIdScript: `_id` = `documentIdFor(cloudwatch.logGroup, logStream, id)` when the event id is set, and
 *   `routing` = its first characters (`routingFor`); a document without one (the Pipes transport's error documents)
 *   gets no `_id` (OpenSearch makes one up, as with the pipeline) and a random routing.
 * - the top-level `_index`, `_id` and `_routing` keys a source may carry are what OpenSearch's ingest service reads
 *   as the request's metadata, so they never reach the stored source through the pipeline: they are removed here
 *   too (kfek's transform moves such app keys to `kfek.collisions`, so its documents never carry them).
 *
 * The source is edited member by member (json-members.ts), so every other byte is the transform's.
 */
import { randomUUID } from 'node:crypto';
import { ARRIVAL_KEY, indexNameFor, type IndexRotation } from '../contracts/index-naming';
import { ROUTE_KEY, ROUTE_STEM_KEY, UNKNOWN_ROUTE_KEY } from '../contracts/routes';
import { documentIdFor, routingFor } from '../opensearch/ingest-pipeline';
import { routeDecision, type RouteTable } from '../opensearch/route-table';
import { isObject } from '../json';
import { javaValueOf } from './java-text';
import { objectMembers, rewriteMembers } from './json-members';

/** Where a prefix's documents go: what one pipeline's `params` hold, and the index template's shards. */
export interface DeliveryTarget {
  /** The default route's index prefix (`delivery.indexPrefix`). */
  readonly prefix: string;
  readonly rotation: IndexRotation;
  /** Primary shards of the index template: the routing's length (`routingLength`). */
  readonly shards: number;
  readonly table: RouteTable;
  /** Stems that extend the prefix (`logs-audit` of `logs`), whose indices are never moved. @default - none */
  readonly nested?: readonly string[];
}

/** One document to send: its bulk action's metadata and its source text. */
export interface IndexedDocumentPlan {
  readonly kind: 'index';
  readonly index: string;
  /** Undefined for a document without an event id: OpenSearch makes its id up. */
  readonly id: string | undefined;
  readonly routing: string;
  readonly source: string;
}

/** A document refused before it is sent, as OpenSearch would refuse it through the pipeline. */
export interface RefusedDocumentPlan {
  readonly kind: 'refuse';
  readonly index: string;
  /** The HTTP status OpenSearch answers such a document with (400). */
  readonly status: number;
  /** OpenSearch's error object, as a bulk item carries it (`type`, `reason`). */
  readonly error: { readonly type: string; readonly reason: string };
}

export type DocumentPlan = IndexedDocumentPlan | RefusedDocumentPlan;

/** The reason REFUSE_SCRIPT throws with (ingest-pipeline.ts); the same text on both paths. */
export const METADATA_REFUSAL =
  'kfek: the document carries _if_seq_no or _if_primary_term, request metadata a log document never sets ' +
  '(the kfek transform moves such app keys to kfek.collisions); it is refused alone';

/** Top-level keys OpenSearch's ingest service takes as the request's metadata, so the pipeline path never stores. */
const METADATA_KEYS = ['_index', '_id', '_routing'];

/** Stands in for `String.substring(0, n)` on a UTF-16 string, as `kfek.unknownRoute` is cut. */
const UNKNOWN_ROUTE_CHARS = 256;

/**
 * The index of a document of the prefix's own indices, moved to its arrival's period (ARRIVAL_SUFFIX_SCRIPT): the
 * same suffix shape as `index`, the arrival's date, and only when that is earlier than `index`'s.
 */
export function arrivalIndex(target: DeliveryTarget, index: string, own: boolean, arrival: unknown): string {
  const suffix = own ? index.slice(target.prefix.length) : '';
  const n = suffix.length;
  if (typeof arrival !== 'number' || n <= 5 || !/[0-9]/.test(suffix.charAt(1))) return index;
  // Painless takes `Number.longValue()`: the integer part.
  const date = new Date(Math.trunc(arrival));
  if (Number.isNaN(date.getTime())) return index;
  const shape: IndexRotation =
    n === 9 && suffix.indexOf('-w') === 5
      ? 'OneWeek'
      : n === 14
        ? 'OneHour'
        : n >= 11
          ? 'OneDay'
          : 'OneMonth';
  // OneDay's shape also stands for any suffix of 11 to 13 characters: the script writes the day for n >= 11.
  const moved = indexNameFor('', shape, date);
  return moved.length === n && moved < suffix ? target.prefix + moved : index;
}

function isOwnIndex(target: DeliveryTarget, index: string): boolean {
  const own = index === target.prefix || index.startsWith(`${target.prefix}-`);
  return own && !(target.nested ?? []).some((stem) => index.startsWith(`${stem}-`));
}

/** The new `kfek` member text (undefined: removed) and the index, or a refusal reason. */
function planKfek(
  target: DeliveryTarget,
  kfekText: string,
  kfek: Record<string, unknown>,
  index: string,
): { readonly index: string; readonly kfek: string | undefined } | { readonly refuse: string } {
  const own = isOwnIndex(target, index);
  const removed = new Map<string, string | undefined>();
  const append: Array<[string, string]> = [];
  let left = Object.keys(kfek).length;
  if (Object.hasOwn(kfek, ARRIVAL_KEY)) {
    removed.set(ARRIVAL_KEY, undefined);
    left -= 1;
    index = arrivalIndex(target, index, own, kfek[ARRIVAL_KEY]);
    if (left === 0) return { index, kfek: undefined };
  }
  if (Object.hasOwn(kfek, ROUTE_KEY)) {
    const route = kfek[ROUTE_KEY];
    removed.set(ROUTE_KEY, undefined).set(ROUTE_STEM_KEY, undefined);
    const decision = routeDecision(target.table, route, kfek[ROUTE_STEM_KEY]);
    if (decision.kind === 'refuse') {
      // On a stem's own index the script leaves an ambiguous name where it is (the pipeline run again after a move).
      if (own) return { refuse: decision.reason };
      append.push([ROUTE_KEY, JSON.stringify(route)]);
    } else if (decision.kind === 'route') {
      append.push([ROUTE_KEY, JSON.stringify(route)]);
      if (own) index = decision.stem + index.slice(target.prefix.length);
    } else {
      append.push([UNKNOWN_ROUTE_KEY, JSON.stringify(javaValueOf(route).slice(0, UNKNOWN_ROUTE_CHARS))]);
    }
  }
  if (removed.size === 0) return { index, kfek: kfekText };
  return { index, kfek: rewriteMembers(kfekText, removed, append) };
}

/** The document id and routing documentIdScript gives a source. */
function idAndRouting(
  source: Record<string, unknown>,
  shards: number,
  random: () => string,
): { readonly id: string | undefined; readonly routing: string } {
  const cw = source.cloudwatch;
  if (isObject(cw) && cw.id !== null && cw.id !== undefined && cw.id !== '') {
    const id = documentIdFor(javaValueOf(cw.logGroup), javaValueOf(cw.logStream), javaValueOf(cw.id));
    return { id, routing: routingFor(id, shards) };
  }
  return { id: undefined, routing: routingFor(random(), shards) };
}

/** The options of {@link planDocument}. */
export interface PlanOptions {
  /** The random value a document without an event id is routed by. @default randomUUID */
  readonly random?: () => string;
}

function refusal(index: string, type: string, reason: string): RefusedDocumentPlan {
  return { kind: 'refuse', index, status: 400, error: { type, reason } };
}

/**
 * What the pipeline makes of one document: `text` as the events stream holds it (one user record's data), and
 * `recordArrival` the events-stream record's arrival (epoch milliseconds), by which Firehose names its index.
 */
export function planDocument(
  target: DeliveryTarget,
  text: string,
  recordArrival: number,
  options: PlanOptions = {},
): DocumentPlan {
  let index = indexNameFor(target.prefix, target.rotation, new Date(recordArrival));
  let source: unknown;
  try {
    source = JSON.parse(text);
  } catch (error) {
    return refusal(
      index,
      'mapper_parsing_exception',
      `failed to parse the document: ${(error as Error).message}`,
    );
  }
  if (!isObject(source)) {
    return refusal(index, 'mapper_parsing_exception', 'the document is not a JSON object');
  }
  if (Object.hasOwn(source, '_if_seq_no') || Object.hasOwn(source, '_if_primary_term')) {
    return refusal(index, 'illegal_argument_exception', METADATA_REFUSAL);
  }
  const edits = new Map<string, string | undefined>();
  for (const key of METADATA_KEYS) if (Object.hasOwn(source, key)) edits.set(key, undefined);
  const kfek = source.kfek;
  if (isObject(kfek)) {
    const member = objectMembers(text).find((m) => m.key === 'kfek');
    const kfekText = member === undefined ? JSON.stringify(kfek) : text.slice(member.valueStart, member.end);
    const planned = planKfek(target, kfekText, kfek, index);
    if ('refuse' in planned) return refusal(index, 'illegal_argument_exception', planned.refuse);
    index = planned.index;
    if (planned.kfek !== kfekText) edits.set('kfek', planned.kfek);
  }
  const { id, routing } = idAndRouting(source, target.shards, options.random ?? randomUUID);
  const edited = edits.size === 0 ? text : rewriteMembers(text, edits);
  // A bulk body is one line per source; a raw line break in JSON text can only be whitespace between tokens.
  return {
    kind: 'index',
    index,
    id,
    routing,
    source: /[\r\n]/.test(edited) ? edited.replace(/[\r\n]/g, ' ') : edited,
  };
}
