/**
 * The one way kfek addresses an object of OpenSearch or Dashboards (issue 39): every request path built from data
 * (index, template, pipeline, policy, role and mapping names, saved-object ids) goes through {@link requestPath}.
 *
 * Why: a name put into a path as it is can become another request. OpenSearch splits the path on `/` and decodes
 * each segment once, then splits an index list on `,`; the SigV4 signer and the URL parser resolve `.` and `..`
 * segments. So `kfek-x/../../_plugins/_security/api/rolesmapping/all_access` as a saved-object id addressed a
 * built-in role mapping, and an index named `<stem>-a%2cvictim` sent as written was decoded into two indices.
 *
 * The builder does two things:
 * - it percent-encodes every data segment once (RFC 3986, core/aws-signing.ts's `uriEncode`, the encoding the
 *   signer's canonical form keeps byte for byte, so what is signed is what is sent);
 * - it refuses, with {@link RequestPathError}, a name that cannot be exactly one object of the intended kind:
 *   empty, `.` or `..`, a separator or wildcard (`/ \ , * ? #`), whitespace, control or invisible format
 *   characters, a `%` escape that decodes to one of those (in case any hop decodes twice), ill-formed Unicode,
 *   names over OpenSearch's 255-byte limit, and for index names kfek creates OpenSearch's own rules.
 *
 * Lists of names (`a,b,c/_settings`) are split by {@link chunkNames} so each request line stays under OpenSearch's
 * `http.max_initial_line_length` (4 KiB): by the bytes of the encoded line, not by a count of names.
 */
import { uriEncode } from '../aws-signing';
import { OpenSearchProvisioningError } from './errors';

/** The kinds of object a data segment can name; each has its own rules ({@link nameProblem}). */
export type NameKind =
  | 'index'
  | 'index pattern'
  | 'name pattern'
  | 'index template'
  | 'ingest pipeline'
  | 'ISM policy'
  | 'security role'
  | 'role mapping'
  | 'saved-object type'
  | 'saved object'
  | 'setting';

/** A name kfek cannot put into a request path as exactly one object of its kind. */
export class RequestPathError extends OpenSearchProvisioningError {
  constructor(
    readonly kind: NameKind,
    readonly value: string,
    problem: string,
  ) {
    super(
      `Refused to address the ${kind} ${JSON.stringify(value)}: ${problem}. kfek only sends requests that name ` +
        `exactly one ${kind}; it never creates such a name, so this one is not kfek's: rename or delete it by hand ` +
        'if it should be managed, or leave it (kfek does not touch it).',
    );
    this.name = 'RequestPathError';
  }
}

/** OpenSearch's default `http.max_initial_line_length`: `METHOD SP target SP HTTP/1.1` must fit in it. */
export const MAX_REQUEST_LINE_BYTES = 4096;
/** `DELETE ` + ` HTTP/1.1`, and room for a base path (`/_dashboards`, a proxy's prefix) in front of the target. */
const LINE_OVERHEAD_BYTES = 'DELETE '.length + ' HTTP/1.1'.length + 128;
/** The longest target (path and query, encoded) {@link chunkNames} lets a request have. */
export const MAX_TARGET_BYTES = MAX_REQUEST_LINE_BYTES - LINE_OVERHEAD_BYTES;

/** OpenSearch's limit on index names (MetadataCreateIndexService: 255 bytes of UTF-8); kfek applies it to all. */
const MAX_NAME_BYTES = 255;

/**
 * Characters that make a segment more than one object: separators of paths and lists, wildcards, the fragment and
 * query marks. `*` is allowed in patterns only.
 */
const SEPARATORS = ['/', '\\', ',', '*', '?', '#'] as const;
/** Whitespace, control characters and invisible format characters (zero-width, bidi marks, soft hyphen). */
const INVISIBLE = /[\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
/** OpenSearch's characters not allowed in index names (Strings.INVALID_FILENAME_CHARS, plus `:` and `#`). */
const INDEX_INVALID = /[\\/*?"<>| ,#:]/;

/** What is wrong with `value` as one object of `kind`, or undefined when it can be addressed. */
export function nameProblem(kind: NameKind, value: string): string | undefined {
  if (value.length === 0) return 'it is empty';
  if (!value.isWellFormed()) return 'it holds a lone UTF-16 surrogate, which has no UTF-8 encoding';
  if (value === '.' || value === '..') return 'it is a dot segment, which every URL hop resolves away';
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_NAME_BYTES) return `it is ${bytes} bytes long, over the ${MAX_NAME_BYTES}-byte limit`;
  const invisible = INVISIBLE.exec(value);
  if (invisible !== null) {
    return `it contains U+${invisible[0].codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')} (whitespace, control or invisible)`;
  }
  const separator = SEPARATORS.find((s) => value.includes(s) && !(s === '*' && kind.endsWith('pattern')));
  if (separator !== undefined)
    return `it contains ${JSON.stringify(separator)}, which would address another object`;
  const escape = /%([0-9A-Fa-f]{2})/g;
  for (let m = escape.exec(value); m !== null; m = escape.exec(value)) {
    const decoded = String.fromCharCode(parseInt(m[1], 16));
    if (
      decoded === '.' ||
      decoded === '%' ||
      INVISIBLE.test(decoded) ||
      SEPARATORS.some((s) => s === decoded)
    ) {
      return `it contains ${m[0]}, which a hop that decodes twice would read as ${JSON.stringify(decoded)}`;
    }
  }
  if (kind === 'index' || kind === 'index pattern') return indexProblem(value);
  if (kind === 'saved-object type' && !/^[a-z][a-z0-9_-]*$/.test(value))
    return 'it is not a saved-object type';
  if (kind === 'setting' && !/^[a-z0-9_.]+$/.test(value)) return 'it is not a setting key';
  return undefined;
}

/** OpenSearch's rules for index names (MetadataCreateIndexService.validateIndexOrAliasName). */
function indexProblem(value: string): string | undefined {
  if (value !== value.toLowerCase()) return 'index names are lowercase';
  if (/^[-_+]/.test(value)) return 'index names do not start with "-", "_" or "+"';
  const bad = INDEX_INVALID.exec(value.replaceAll('*', ''));
  if (bad !== null) return `index names do not contain ${JSON.stringify(bad[0])}`;
  return undefined;
}

/** Whether `value` can be addressed as one object of `kind` (readers skip the others: they are not kfek's). */
export function isAddressable(kind: NameKind, value: string): boolean {
  return nameProblem(kind, value) === undefined;
}

/** `value`, checked ({@link nameProblem}) and percent-encoded once. */
function encodeName(kind: NameKind, value: string): string {
  const problem = nameProblem(kind, value);
  if (problem !== undefined) throw new RequestPathError(kind, value, problem);
  return uriEncode(value);
}

/** A data segment: one name, or a comma-joined list of names of one kind. */
export interface NameSegment {
  readonly kind: NameKind;
  readonly names: readonly string[];
}

/** One name as a path segment. */
export function name(kind: NameKind, value: string): NameSegment {
  return { kind, names: [value] };
}

/** Several names of one kind as one `a,b,c` segment (see {@link chunkNames} for long lists). */
export function names(kind: NameKind, values: readonly string[]): NameSegment {
  return { kind, names: values };
}

/**
 * A path segment: a fixed API word (`_plugins`, `_settings`), written in the code, or a {@link NameSegment}.
 * API words are checked too: a mistake in the code must not become a dot segment or a separator either.
 */
export type Segment = string | NameSegment;

export type QueryValue = string | number | boolean;

const API_WORD = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

function segmentText(segment: Segment): string {
  if (typeof segment === 'string') {
    if (!API_WORD.test(segment)) throw new Error(`Bug: ${JSON.stringify(segment)} is not an API path word.`);
    return segment;
  }
  if (segment.names.length === 0) {
    throw new RequestPathError(segment.kind, '', 'the list of names is empty');
  }
  return segment.names.map((n) => encodeName(segment.kind, n)).join(',');
}

/**
 * `/seg/seg/...?k=v`: API words as written, names checked and percent-encoded, query keys and values encoded.
 * Throws {@link RequestPathError} for a name that is not exactly one object of its kind.
 */
export function requestPath(
  segments: readonly Segment[],
  query: Readonly<Record<string, QueryValue | undefined>> = {},
): string {
  const path = `/${segments.map(segmentText).join('/')}`;
  const pairs = Object.entries(query)
    .filter((entry): entry is [string, QueryValue] => entry[1] !== undefined)
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(String(v))}`);
  return pairs.length === 0 ? path : `${path}?${pairs.join('&')}`;
}

/**
 * Splits `values` into lists whose request target (`render(list)`) stays within {@link MAX_TARGET_BYTES}, so the
 * request line fits OpenSearch's 4 KiB limit; greedy and in order. `render` builds the target with
 * {@link requestPath} and {@link names}, so it also checks every name. A name too long to fit alone is refused.
 */
export function chunkNames(
  kind: NameKind,
  values: readonly string[],
  render: (list: NameSegment) => string,
  maxTargetBytes: number = MAX_TARGET_BYTES,
): string[] {
  const targets: string[] = [];
  let current: string[] = [];
  let rendered = '';
  for (const value of values) {
    const tried = render(names(kind, [...current, value]));
    if (Buffer.byteLength(tried) <= maxTargetBytes) {
      current.push(value);
      rendered = tried;
      continue;
    }
    if (current.length > 0) targets.push(rendered);
    rendered = render(names(kind, [value]));
    if (Buffer.byteLength(rendered) > maxTargetBytes) {
      throw new RequestPathError(
        kind,
        value,
        `its request line would exceed ${MAX_REQUEST_LINE_BYTES} bytes`,
      );
    }
    current = [value];
  }
  if (current.length > 0) targets.push(rendered);
  return targets;
}

/** `/_plugins/_security/api/roles/<role>`. */
export function rolePath(role: string): string {
  return requestPath(['_plugins', '_security', 'api', 'roles', name('security role', role)]);
}

/** `/_plugins/_security/api/rolesmapping/<role>`. */
export function mappingPath(role: string): string {
  return requestPath(['_plugins', '_security', 'api', 'rolesmapping', name('role mapping', role)]);
}

/** `/api/saved_objects/<type>/<id>` below Dashboards' base URL, from a `type/id` key (the readers' form). */
export function savedObjectPath(key: string): string {
  const slash = key.indexOf('/');
  return requestPath([
    'api',
    'saved_objects',
    name('saved-object type', key.slice(0, slash < 0 ? key.length : slash)),
    name('saved object', slash < 0 ? '' : key.slice(slash + 1)),
  ]);
}

/**
 * `/<pattern>,<pattern>/<action>?ignore_unavailable=true&allow_no_indices=true&...`: a read over index patterns
 * (`logs-*`) that answers empty rather than 404 when none matches. `patterns` is a list, or a comma-joined one.
 */
export function indicesPath(
  patterns: string | readonly string[],
  action: string,
  query: Readonly<Record<string, QueryValue>> = {},
): string {
  const list = typeof patterns === 'string' ? patterns.split(',') : patterns;
  return requestPath([names('index pattern', list), action], {
    ignore_unavailable: true,
    allow_no_indices: true,
    ...query,
  });
}
