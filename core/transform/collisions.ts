/**
 * Which top-level app keys collide with a name that is not the app's: kfek's own fields, and the names OpenSearch
 * reads as a document's or a request's metadata. Colliding keys are kept under `kfek.collisions` (document.ts).
 * Pure: no SDK, no environment, no I/O.
 */
import type { DerivedFields } from './parsers';

/**
 * Key under `kfek` that holds app fields whose names collide with a field kfek owns
 * (`@timestamp`, `cloudwatch`, `kfek`, a non-string `message`, or a derived field such as `lambda`) or with an
 * OpenSearch metadata name ({@link METADATA_FIELD_NAMES}), exactly or as the first segment of a dotted name (see
 * `collidesWithOurs`). They are kept there, under their own name, rather than dropped or allowed to overwrite ours.
 */
export const COLLISIONS_KEY = 'collisions';

/**
 * Top-level names OpenSearch does not treat as the app's data (issue 22, item 2). Measured on 3.6 through kfek's
 * index template and ingest pipeline (test/core/opensearch/metadata-names.integ.test.ts), and read from its source:
 * - the ingest pipeline takes the request's metadata from the document (`IngestDocument.Metadata`): `_index`, `_id`,
 *   `_routing` (all three vanished from the stored document; `_routing` routed it until kfek's pipeline set every
 *   document's routing itself), `_version`, `_version_type`, `_if_seq_no` (made every delivery a conditional write,
 *   refused with 409 every time) and `_if_primary_term`;
 * - the built-in metadata field mappers (`IndicesModule.initBuiltInMetadataMappers`, and `_primary_term` of the
 *   sequence-number mapper): `_doc_count` is read from the document (`_doc_count: 5` made one event count as five
 *   in every aggregation), `_primary_term` got the event refused (400), `_source`, `_seq_no`, `_field_names`,
 *   `_ignored`, `_nested_path` and `_data_stream_timestamp` were kept in `_source` but never indexed;
 * - names other versions and plugins reserve: `_type` (OpenSearch 1.x), `_size` (the mapper-size plugin), `_tier`
 *   (Elasticsearch), `_parent` and `_uid` (older Elasticsearch).
 * Other underscore names (`_aws` of the Embedded Metric Format, `_ingest`, `_foo`) are ordinary fields: indexed and
 * searchable as written, measured.
 */
export const METADATA_FIELD_NAMES: ReadonlySet<string> = new Set([
  '_index',
  '_id',
  '_routing',
  '_version',
  '_version_type',
  '_if_seq_no',
  '_if_primary_term',
  '_source',
  '_seq_no',
  '_primary_term',
  '_doc_count',
  '_field_names',
  '_ignored',
  '_nested_path',
  '_data_stream_timestamp',
  '_type',
  '_size',
  '_tier',
  '_parent',
  '_uid',
]);

const DOT = 0x2e;

/** True when `key` is `name` or a dotted path under it (`name.…`). */
function addresses(key: string, name: string): boolean {
  return key.startsWith(name) && (key.length === name.length || key.charCodeAt(name.length) === DOT);
}

/** True when the first path segment of `key` is an OpenSearch metadata name. */
function addressesMetadata(key: string): boolean {
  const dot = key.indexOf('.');
  return METADATA_FIELD_NAMES.has(dot < 0 ? key : key.slice(0, dot));
}

/**
 * True when a top-level app key addresses a field kfek owns in this document, or OpenSearch metadata. OpenSearch
 * expands a dotted name into a path (`{"cloudwatch.owner": x}` is indexed as `cloudwatch.owner`, and a trailing
 * dot is dropped), so a key collides when its first segment, up to the first dot, is one of ours:
 * `@timestamp`, `message`, `cloudwatch`, `kfek`, a derived field this event has, or a metadata name. Measured on
 * OpenSearch 3.6: a leading dot or an empty segment (`.cloudwatch`, `a..b`) is refused ("failed to parse"; such a
 * key is kept under `kfek.overflow`, core/contracts/field-budget.ts), and the first segment is neither trimmed nor
 * case-folded, so those address nothing of ours. Nested keys cannot collide: their path starts with their parent's
 * name. The caller handles an app's string `message`, which becomes the document's message. On the hot path: one
 * first-character switch, and a prefix test only for keys starting like one of our names.
 */
export function collidesWithOurs(key: string, derived: DerivedFields | undefined): boolean {
  switch (key.charCodeAt(0)) {
    case 0x40: // @
      return addresses(key, '@timestamp');
    case 0x5f: // _
      return addressesMetadata(key);
    case 0x63: // c
      return addresses(key, 'cloudwatch');
    case 0x6b: // k
      return addresses(key, 'kfek');
    case 0x6d: // m
      return addresses(key, 'message');
    case 0x6c: // l
      return (
        derived !== undefined &&
        ((derived.level !== undefined && addresses(key, 'level')) ||
          (derived.logger !== undefined && addresses(key, 'logger')) ||
          (derived.lambda !== undefined && addresses(key, 'lambda')))
      );
    case 0x74: // t
      return derived?.thread !== undefined && addresses(key, 'thread');
    default:
      return false;
  }
}
