import { documentIdFor, ID_BYTES } from '../contracts/document-id';
import { ROUTE_KEY, ROUTE_STEM_KEY, UNKNOWN_ROUTE_KEY } from '../contracts/routes';
import { ARRIVAL_KEY } from '../contracts/index-naming';
import { ambiguousReason, profileRouteTable, type RouteTable } from './route-table';
import type { OpenSearchSpec } from './spec';

/**
 * The ingest pipeline that gives every log document a deterministic `_id` (`PUT _ingest/pipeline/<name>`), set as
 * the index template's `index.default_pipeline`, so a redelivered event overwrites its document instead of adding
 * a second one.
 *
 * Why this shape (docs/guarantees.md, "Delivery guarantee", has the user-facing version):
 * - Delivery is at least once: a partial batch response, a Lambda retry or a Firehose retry writes an event
 *   again. Firehose's own ids (`FIREHOSE_DEFAULT`) are per Kinesis record, so they only collapse Firehose's own
 *   retries, not a record the transform wrote twice. The id must come from the event itself.
 * - What identifies a CloudWatch Logs event is its log group, log stream and event id together: the event id alone
 *   is not documented as globally unique. All three are already in every document (`cloudwatch.logGroup`,
 *   `cloudwatch.logStream`, `cloudwatch.id`), so the pipeline hashes them and the document schema (a public
 *   contract) gains no field, and the transform's hot path no work.
 * - The hash is SHA-256 of the three values, each prefixed with its length, so no choice of names can make two
 *   different triples hash the same input; the id is its first 12 bytes in base64url (16 characters, see
 *   {@link documentIdScript} for why not all 32 bytes in hex). Painless' `String.sha256()` computes it. Not the `fingerprint` processor (OpenSearch 2.16+), which would need no script: it shares one
 *   `MessageDigest` between ingest threads, so under concurrent bulk requests it computes wrong hashes (measured
 *   on OpenSearch 3.6.0 with `npm run bench:ids`: 119,883 documents for 120,000 events, so 117 events were
 *   overwritten by another event's id; fixed upstream by opensearch-project/OpenSearch#23027, which the 2.19
 *   that kfek deploys predates).
 * - Documents without an event id (the Pipes transport's error documents, whose `cloudwatch` fields are empty
 *   strings) are left alone: OpenSearch generates their id. Hashing their empty fields would make every error
 *   document overwrite the previous one. A redelivered error document is therefore stored twice; it describes a
 *   poison record and carries no log event.
 * - A document the script fails on is rejected by OpenSearch like any mapping error, so Firehose keeps it in the
 *   failed-documents prefix: nothing is dropped silently.
 * - A default pipeline can be skipped: OpenSearch resolves it from the cluster state the node has when a bulk
 *   arrives, and a node that has just (re)started has no indices or templates in it yet. Such a bulk resolves no
 *   pipeline, waits out the "state not recovered" block, and is then indexed with ids OpenSearch makes up
 *   (TransportBulkAction#doInternalExecute calls IngestService#resolvePipelines before BulkOperation retries on the
 *   block; Elasticsearch fixed the same race in elastic/elasticsearch#99797, OpenSearch 3.6 has not). Measured on
 *   the local node: a redelivered event then had two documents, one under a random id. `index.final_pipeline`
 *   is resolved at the same moment from the same empty state, so it does not help. So the script also sets
 *   `_routing` (the first characters of the document id, or of a random value for a document without one) and the
 *   index template requires a routing (`_routing.required`): a document that reaches the index without this
 *   pipeline is refused rather than stored under a made-up id (test/e2e/faults/unrecovered-node.test.ts). A `GET`
 *   by id needs `?routing=<first 2 characters of the id>` (3 with more than 64 shards: {@link routingFor}).
 * - One bad document must never fail another (issue 31). OpenSearch (2.19 and 3.x) runs a default pipeline over
 *   all the documents of a `_bulk` bound for one index as one batch, and an exception outside a processor fails
 *   every document of that batch (IngestService#executePipelinesInBatchRequests; docs/opensearch.md, "One bad
 *   document"). Two such exceptions exist: a source that cannot be parsed (which the transform never writes) and
 *   metadata the pipeline's result cannot be written back with: an `_if_seq_no` or `_if_primary_term` key that is
 *   not a number. The script refuses a document carrying either key itself, inside the processor, so only that
 *   document fails ({@link REFUSE_SCRIPT}); kfek's transform never writes them (it moves them to
 *   `kfek.collisions`), and as numbers they would turn a log write into a conditional one.
 * - Firehose must send no id of its own (`DocumentIdOptions.DefaultDocumentIdFormat: NO_DOCUMENT_ID`, see
 *   lib/constructs/firehose-to-opensearch.ts): its ids are per Kinesis record, and the setting is documented as
 *   the lighter one for log ingestion.
 */

// The id's owner is the contract (the transform's decisions compute it too); the script below mirrors it.
export { documentIdFor, ID_BYTES };

/**
 * Characters of the id used as `_routing`: 2 (4,096 values) spreads documents evenly enough over up to 64 shards;
 * 3 (262,144) beyond.
 */
export function routingLength(shards: number): number {
  return shards <= 64 ? 2 : 3;
}

/**
 * Painless: `_id` = the first {@link ID_BYTES} bytes of SHA-256 of `<len>:<logGroup>|<len>:<logStream>|<len>:<id>`,
 * in base64url, for documents that carry an event id; `_routing` = the first {@link routingLength} characters of
 * the id, or of a random UUID when there is none (OpenSearch then generates the id). The template requires the
 * routing, so only documents this script ran on are indexed. `instanceof Map` guards against a `cloudwatch` that
 * is not an object (rejected at mapping anyway).
 *
 * Why 12 bytes in base64url, and a short routing (issue 31, "Half the bytes"): OpenSearch stores an `_id` that is
 * base64url as the bytes it encodes, in the terms dictionary and in the stored fields. The former 64 hex
 * characters read as base64 were 48 bytes of random data per document, and the routing (the whole id) 64 more
 * characters in both places: together over a third of an index (measured, npm run bench:storage). 96 bits of
 * SHA-256 make a collision between two events of one daily index negligible (about 10^-11 at a billion events a
 * day); the routing only has to exist and spread documents over the shards.
 * {@link documentIdFor} computes the same id in TypeScript; a test holds the two to each other on a real node.
 */
export function documentIdScript(shards: number): string {
  const length = routingLength(shards);
  return [
    'def cw = ctx.cloudwatch;',
    "if (cw instanceof Map && cw.id != null && cw.id != '') {",
    'String g = String.valueOf(cw.logGroup); String s = String.valueOf(cw.logStream); String i = String.valueOf(cw.id);',
    "String h = (g.length() + ':' + g + '|' + s.length() + ':' + s + '|' + i.length() + ':' + i).sha256();",
    `byte[] b = new byte[${ID_BYTES}];`,
    `for (int j = 0; j < ${ID_BYTES}; ++j) { b[j] = (byte) Integer.parseInt(h.substring(2 * j, 2 * j + 2), 16); }`,
    'ctx._id = Base64.getUrlEncoder().withoutPadding().encodeToString(b);',
    '}',
    'String rt = ctx._id == null ? UUID.randomUUID().toString() : String.valueOf(ctx._id);',
    `ctx._routing = rt.length() > ${length} ? rt.substring(0, ${length}) : rt;`,
  ].join(' ');
}

/** The routing the pipeline gives a document with this `_id`: a `GET` by id needs `?routing=<this>`. */
export function routingFor(documentId: string, shards = 1): string {
  return documentId.slice(0, routingLength(shards));
}

/**
 * Painless, inside {@link ROUTE_SCRIPT} with `a` = the removed `kfek.arrival`, `ix` = the index, `px` = the prefix and
 * `own` = the index is the prefix's own: the index of a document of the prefix's own indices becomes the one of the
 * period its raw record reached the raw stream in (issue 30.5, core/contracts/index-naming.ts `ARRIVAL_KEY`).
 *
 * Why: Firehose names the index by when it delivers, so two copies of one record (a Lambda or Firehose retry after
 * midnight, or a transport switch, whose new reader starts at `TRIM_HORIZON` and reads the stream's whole retention
 * again) could land in two days' indices, where the same `_id` does not overwrite. The arrival is the same for every
 * copy of a record, so every copy lands in one index and the last overwrites the others.
 *
 * How: the suffix keeps the shape Firehose gave it (OneHour `-YYYY-MM-DD-HH`, 14 characters; OneDay `-YYYY-MM-DD`,
 * 11; OneWeek `-YYYY-wWW`, 9; OneMonth `-YYYY-MM`, 8), so the rotation needs no parameter and always matches what
 * Firehose writes, and only the date is the arrival's, in UTC, as index-naming.ts `indexNameFor` computes it (a test holds the
 * two to each other on a real node). The index only ever moves to an earlier period: an arrival after Firehose's
 * period (a clock that is off) or one in another shape keeps Firehose's index. A document without the key (backfill,
 * records of an earlier transform) keeps Firehose's index as before. The key is removed from every document, so it is
 * never stored or mapped; `kfek` is removed when nothing else is under it.
 */
const ARRIVAL_SUFFIX_SCRIPT = [
  "String f = own ? ix.substring(px.length()) : ''; int n = f.length();",
  'if (a instanceof Number && n > 5 && Character.isDigit(f.charAt(1))) {',
  'ZonedDateTime t = Instant.ofEpochMilli(((Number) a).longValue()).atZone(ZoneOffset.UTC);',
  "String s = '-' + t.getYear() + '-';",
  "if (n == 9 && f.indexOf('-w') == 5) {",
  'int w = (t.getDayOfYear() + 6 - t.getDayOfWeek().getValue() % 7) / 7;',
  "s += 'w' + (w < 10 ? '0' : '') + w;",
  '} else {',
  "int mo = t.getMonthValue(); s += (mo < 10 ? '0' : '') + mo;",
  "if (n >= 11) { int d = t.getDayOfMonth(); s += '-' + (d < 10 ? '0' : '') + d; }",
  "if (n == 14) { int h = t.getHour(); s += '-' + (h < 10 ? '0' : '') + h; }",
  '}',
  'if (s.length() == n && s.compareTo(f) < 0) { ix = px + s; ctx._index = ix; }',
  '}',
].join(' ');

/** {@link ambiguousReason} as a Painless expression over the name `r` (single quotes: the reason has none). */
const painlessReason = ambiguousReason('\u0000')
  .split('\u0000')
  .map((part) => `'${part}'`)
  .join(' + r + ');

/**
 * Routes (docs/teams-and-routes.md, "How routing works"). Firehose writes every document to the default route's
 * index of the day (`logs-2026-11-25`); one delivery stream serves every team. This script first puts it in the
 * period of its raw record's arrival ({@link ARRIVAL_SUFFIX_SCRIPT}). The transform writes the name of a document's
 * route to `kfek.route`, and the script then moves the document to that route's index of the same period
 * (`payments-2026-11-25`: the route's stem in place of the prefix, the rotation suffix kept).
 *
 * What the transform guarantees and what the pipeline enforces:
 * - The transform alone writes `kfek.*`: an app key `kfek` or `kfek.route` is moved to `kfek.collisions`, and
 *   `_index` with the other metadata names too (docs/schema.md, "Collisions"). It chooses the route from
 *   `cloudwatch.logGroup` and the source account, which come from the CloudWatch Logs envelope, not from the app.
 * - The pipeline does not trust the document beyond a name and a stem: the target index is built from its own table
 *   (route-table.ts, written by the provisioner from the families it keeps) and the index Firehose chose. The
 *   transform marks the stem it routed for (`kfek.stem`, removed here): the document goes to that stem only if the
 *   name pointed at it (`params.marks`: the profile's pair, or a retired one still kept), so a route name moved to
 *   another team's stem never takes the documents marked for the old one there (issue 39). A document with a name
 *   only (a transform from before the stem mark) goes to the name's one stem (`params.routes`), and is refused
 *   with the reason when the name pointed at two stems lately (`params.ambiguous`). A name or pair it does not
 *   know, or a `kfek.route` that is not a string, never picks an index: the document stays in the default index,
 *   `kfek.route` is removed and its value kept in `kfek.unknownRoute` (cut to 256 characters), so it can be found
 *   and nothing is lost. A forged or stale name therefore lands in the default route's indices, never in another
 *   team's.
 * - Only a document bound for the default route's indices (`<prefix>` or `<prefix>-...`) is moved; one written
 *   anywhere else keeps its index. When the pipeline runs again on the route's index (OpenSearch may run the new
 *   index's default pipeline, which is this one), nothing changes: the script is idempotent.
 */
export const ROUTE_SCRIPT = [
  'def k = ctx.kfek; String ix = ctx._index; String px = params.prefix;',
  // A stem that extends the prefix (`logs-audit`) owns its own indices (issue 30): they are never moved again.
  "boolean own = ix == px || ix.startsWith(px + '-');",
  "if (own && params.containsKey('nested')) { for (def n : params.nested) { if (ix.startsWith(n + '-')) { own = false; } } }",
  `if (k instanceof Map && k.containsKey('${ARRIVAL_KEY}')) {`,
  `def a = k.remove('${ARRIVAL_KEY}');`,
  ARRIVAL_SUFFIX_SCRIPT,
  "if (k.isEmpty()) { ctx.remove('kfek'); }",
  '}',
  `if (k instanceof Map && k.containsKey('${ROUTE_KEY}')) {`,
  `def r = k.remove('${ROUTE_KEY}'); def ms = k.remove('${ROUTE_STEM_KEY}'); String stem = null;`,
  'if (r instanceof String) {',
  // A document of a transform from before the stem mark: its name alone, unless the name meant two stems lately.
  'if (ms == null) {',
  'stem = params.routes.get(r);',
  "if (stem == null && params.containsKey('ambiguous') && params.ambiguous.contains(r)) {",
  // Refused where it would be moved; on a stem's own index (this pipeline run again after the move) left as it is.
  `if (own) { throw new IllegalArgumentException(${painlessReason}); } stem = '';`,
  '}',
  // Marked with its stem: that stem, and only if the name pointed at it (the profile's, or a retired one kept).
  "} else if (ms instanceof String && params.containsKey('marks')) {",
  'def ok = params.marks.get(r); if (ok != null && ok.contains(ms)) { stem = ms; }',
  '}',
  '}',
  'if (stem == null) {',
  `String u = String.valueOf(r); k.${UNKNOWN_ROUTE_KEY} = u.length() > 256 ? u.substring(0, 256) : u;`,
  '} else {',
  `k.${ROUTE_KEY} = r;`,
  'if (own) { ctx._index = stem + ix.substring(px.length()); }',
  '}',
  '}',
].join(' ');

/**
 * Painless: refuses a document that carries request metadata a log document never sets (see the file comment);
 * the message says what to do. A processor's exception fails that document alone.
 */
export const REFUSE_SCRIPT = [
  "if (ctx.containsKey('_if_seq_no') || ctx.containsKey('_if_primary_term')) {",
  "throw new IllegalArgumentException('kfek: the document carries _if_seq_no or _if_primary_term, request metadata ' +",
  "'a log document never sets (the kfek transform moves such app keys to kfek.collisions); it is refused alone');",
  '}',
].join(' ');

/**
 * What one pipeline routes (issue 30): the prefix whose indices it moves documents from, the route table
 * (route-table.ts: the profile's names, and retired ones kept while documents marked with them can still arrive), and
 * the stems that extend the prefix, whose indices are never moved.
 */
export interface PipelineRouteTable {
  readonly prefix: string;
  readonly table: RouteTable;
  /** @default - none */
  readonly nested?: readonly string[];
}

/** The full `PUT _ingest/pipeline/<spec.names.ingestPipeline>` body (or a retired prefix's, with its `table`). */
export function buildIngestPipeline(
  spec: OpenSearchSpec,
  routing: PipelineRouteTable = { prefix: spec.indexPrefix, table: profileRouteTable(spec.routes) },
): Record<string, unknown> {
  const { prefix, table } = routing;
  const nested = routing.nested ?? [];
  return {
    description:
      `kfek (managed): puts a document of ${prefix}-* in the index of its kfek.arrival and, marked with a known ` +
      "kfek.route, in its route's index of that period, and sets _id from cloudwatch.logGroup, logStream and id, " +
      'so a redelivered log event overwrites its document',
    // One script, not one per job: each processor costs a pass over the batch and a script context per document
    // (npm run bench:e2e, docs/local.md "Where the time goes").
    processors: [
      {
        script: {
          tag: 'kfek-route-and-id',
          lang: 'painless',
          source: [REFUSE_SCRIPT, ROUTE_SCRIPT, documentIdScript(spec.indexTemplate.shards)].join(' '),
          params: {
            prefix,
            routes: table.names,
            ...(Object.keys(table.marks).length === 0 ? {} : { marks: table.marks }),
            ...(table.ambiguous.length === 0 ? {} : { ambiguous: table.ambiguous }),
            ...(nested.length === 0 ? {} : { nested: [...nested] }),
          },
        },
      },
    ],
  };
}
