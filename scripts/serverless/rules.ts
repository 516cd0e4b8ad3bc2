/**
 * The conformance stand-in's rules (issue 42, docs/serverless.md): what OpenSearch Serverless refuses that a plain
 * OpenSearch node accepts, as pure functions of one request, each with the documentation it comes from. The server
 * (./standin.ts) refuses a request when {@link refusalOf} returns a refusal, and forwards it to the real node
 * otherwise.
 *
 * Sources (numbered as in docs/serverless.md):
 * [1] https://docs.aws.amazon.com/opensearch-service/latest/developerguide/serverless-genref.html (the API table)
 * [2] https://docs.aws.amazon.com/solutions/latest/migration-assistant-for-amazon-opensearch-service/mts-collection-types.html
 * [3] https://docs.aws.amazon.com/opensearch-service/latest/developerguide/serverless-lifecycle.html
 * [5] https://docs.amazonaws.cn/en_us/opensearch-service/latest/developerguide/serverless-ingest-pipelines.md
 * [6] https://aws.amazon.com/blogs/big-data/amazon-opensearch-serverless-cost-effective-search-capabilities-at-any-scale
 * [15] https://github.com/aws/aws-sdk-pandas/discussions/2639 (AWS's maintainers: "GET _search/scroll is not in the
 *      list of supported operations", confirmed by a test against a collection, January 2024)
 */
import type { CollectionType } from '../../core/config/serverless';

export interface StandinRequest {
  readonly method: string;
  /** Decoded path, e.g. `/logs-2026-11-29/_doc/abc`. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface Refusal {
  readonly status: number;
  readonly reason: string;
}

type Route = { readonly method: RegExp; readonly path: RegExp; readonly searchOnly?: boolean };

// The API table of [1]: every operation Serverless lists, by method and path. `<index>` is one path segment that
// does not start with `_`; anything not listed is refused, as [1] says Serverless supports "a subset".
const I = '/[^_/][^/]*';
const ALLOWED: readonly Route[] = [
  // aoss:CreateIndex, aoss:DescribeIndex, aoss:UpdateIndex, aoss:DeleteIndex
  { method: /^(PUT|GET|HEAD|DELETE)$/, path: new RegExp(`^${I}$`) },
  { method: /^(GET|PUT)$/, path: new RegExp(`^${I}/_mappings?$`) },
  { method: /^(GET|PUT)$/, path: new RegExp(`^${I}/_settings?(/[^/]+)?$`) },
  { method: /^GET$/, path: /^\/_mappings?$/ },
  { method: /^GET$/, path: /^\/_cat\/indices(\/[^/]+)?$/ },
  { method: /^GET$/, path: /^\/_resolve\/index\/[^/]+$/ },
  // aoss:WriteDocument: `_bulk` on any collection; a document by id only on SEARCH collections
  { method: /^(POST|PUT)$/, path: new RegExp(`^(${I})?/_bulk$`) },
  { method: /^POST$/, path: new RegExp(`^${I}/_doc$`) },
  { method: /^(PUT|POST)$/, path: new RegExp(`^${I}/_(doc|create)/[^/]+$`), searchOnly: true },
  { method: /^POST$/, path: new RegExp(`^${I}/_update/[^/]+$`), searchOnly: true },
  { method: /^DELETE$/, path: new RegExp(`^${I}/_doc/[^/]+$`) },
  // aoss:ReadDocument
  { method: /^(GET|HEAD)$/, path: new RegExp(`^${I}/_(doc|source)/[^/]+$`) },
  {
    method: /^(GET|POST)$/,
    path: new RegExp(`^(${I})?/_(search|msearch|count|mget|field_caps|analyze|explain/[^/]+)$`),
  },
  // aliases and index templates (aoss:DescribeCollectionItems, UpdateCollectionItems, DeleteCollectionItems)
  { method: /^(GET|POST)$/, path: /^\/_aliases?$/ },
  { method: /^(GET|PUT|DELETE|HEAD)$/, path: new RegExp(`^${I}/_alias(es)?(/[^/]+)?$`) },
  { method: /^(GET|PUT|POST|DELETE|HEAD)$/, path: /^\/_(index|component)_template(\/[^/]+)?$/ },
  // ingest pipelines [5]
  { method: /^(GET|PUT|DELETE)$/, path: /^\/_ingest\/pipeline(\/[^/]+)?$/ },
];

/** Index settings Serverless decides itself: shards and replicas are the service's [6], ISM is absent [3]. */
const REFUSED_SETTINGS: readonly { readonly key: RegExp; readonly why: string }[] = [
  { key: /(^|\.)number_of_(shards|replicas)$/, why: 'the service manages shards and replicas [6]' },
  { key: /(^|\.)auto_expand_replicas$/, why: 'the service manages replicas [6]' },
  {
    key: /^(index\.)?(plugins|opendistro)\.index_state_management\./,
    why: 'there is no ISM; retention is by lifecycle policy on time-series collections only [3]',
  },
  {
    key: /^(index\.)?routing\.allocation\./,
    why: "shard allocation (UltraWarm, node attributes) is the service's [6]",
  },
];

function refuse(status: number, reason: string): Refusal {
  return { status, reason: `OpenSearch Serverless stand-in: ${reason}` };
}

/** Flattens `{ index: { number_of_shards: 1 } }` and `{ "index.number_of_shards": 1 }` alike. */
function flatKeys(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => flatKeys(v, prefix === '' ? k : `${prefix}.${k}`));
}

function parse(body: string): unknown {
  if (body.trim() === '') return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** The settings objects a body may carry: an index's, a template's, a settings update's. */
function settingsOf(body: unknown): unknown[] {
  if (typeof body !== 'object' || body === null) return [];
  const b = body as Record<string, unknown>;
  const template = (b.template ?? {}) as Record<string, unknown>;
  // `PUT <index>/_settings` takes the settings themselves: `{ "index": {...} }` or `{ "index.x": ... }`.
  const flat = Object.fromEntries(Object.entries(b).filter(([k]) => k.startsWith('index.')));
  return [b.settings, template.settings, b.index === undefined ? undefined : { index: b.index }, flat].filter(
    (s) => s !== undefined,
  );
}

function settingRefusal(body: unknown): Refusal | undefined {
  for (const key of settingsOf(body).flatMap((s) => flatKeys(s))) {
    const rule = REFUSED_SETTINGS.find((r) => r.key.test(key));
    if (rule) return refuse(400, `the index setting "${key}" is refused: ${rule.why}.`);
  }
  return undefined;
}

/** Any `script` (Painless) anywhere in a body: processors, queries, `script_fields`, conditions (`if`). */
function scriptPath(value: unknown, path = ''): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const here = path === '' ? k : `${path}.${k}`;
    if (k === 'script' || k === 'script_fields' || k === 'scripted_metric') return here;
    if (k === 'if' && typeof v === 'string') return here;
    const inner = scriptPath(v, here);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/**
 * Painless does not run on Serverless: the ingest pipelines page lists a curated set of processors and rejects
 * pipelines that reference any other [5]; issue 41 cites AWS's guidance that Painless scripts are not supported.
 */
function painlessRefusal(body: unknown): Refusal | undefined {
  const at = scriptPath(body);
  return at === undefined
    ? undefined
    : refuse(400, `"${at}" is a Painless script, which Serverless does not run [5].`);
}

/**
 * `_bulk`: on TIMESERIES and VECTORSEARCH collections the service generates ids, so an action carrying `_id` (or an
 * update/delete, which need one) is refused [1][2]. `routing` is refused on every type: Serverless documents no
 * routing, and the shards it would pick are the service's [6] (docs/serverless.md: "not found in the docs here").
 */
function bulkRefusal(body: string, type: CollectionType): Refusal | undefined {
  const lines = body.split('\n').filter((l) => l.trim() !== '');
  let action = 0;
  for (let i = 0; i < lines.length; i++, action++) {
    const parsed = parse(lines[i]) as Record<string, Record<string, unknown>> | undefined;
    const [op] = Object.keys(parsed ?? {});
    const meta = parsed?.[op] ?? {};
    if (meta.routing !== undefined) {
      return refuse(
        400,
        `bulk action ${action} carries "routing", which Serverless does not take (the service places documents).`,
      );
    }
    if (type !== 'SEARCH' && (meta._id !== undefined || op === 'update' || op === 'delete')) {
      return refuse(
        400,
        `a ${type} collection generates document ids; bulk "${op}" with "_id" is for SEARCH collections only [1][2].`,
      );
    }
    if (op === 'delete') continue;
    i++; // the source line: an update's may carry a script
    const painless = op === 'update' ? painlessRefusal(parse(lines[i] ?? '')) : undefined;
    if (painless) return painless;
  }
  return undefined;
}

/** Why Serverless would refuse this request, or undefined when it accepts it (as far as the docs say). */
export function refusalOf(request: StandinRequest, type: CollectionType): Refusal | undefined {
  const route = ALLOWED.find((r) => r.method.test(request.method) && r.path.test(request.path));
  if (route === undefined) {
    return refuse(
      404,
      `${request.method} ${request.path} is not among the operations Serverless supports [1] (no _cluster, _nodes, ` +
        '_cat other than indices, _plugins/_ism, _plugins/_security, _snapshot, _tasks, scripts).',
    );
  }
  if (route.searchOnly === true && type !== 'SEARCH') {
    return refuse(
      400,
      `${request.method} ${request.path} is for SEARCH collections only; this one is ${type} [1].`,
    );
  }
  if (request.query.scroll !== undefined) {
    return refuse(
      400,
      'the scroll API is not supported [1][15]: page with search_after, or by a range of the query, instead.',
    );
  }
  if (request.query.routing !== undefined) {
    return refuse(400, '"routing" is not taken: the service places documents [6].');
  }
  const body = parse(request.body);
  if (request.path.endsWith('/_bulk')) return bulkRefusal(request.body, type);
  if (request.path.endsWith('/_mget')) {
    const docs = (body as { docs?: unknown } | undefined)?.docs;
    const routed = Array.isArray(docs)
      ? docs.findIndex((d) => (d as { routing?: unknown })?.routing !== undefined)
      : -1;
    if (routed >= 0)
      return refuse(400, `_mget doc ${routed} carries "routing": the service places documents [6].`);
  }
  return painlessRefusal(body) ?? settingRefusal(body);
}
