/**
 * The rules of the settings that more than one reader checks, each written once with its path, kind, bounds and
 * hint. The config reader (core/config) applies them to a profile, and every spec that takes the config applies the
 * same rule to its own copy of the value: the OpenSearch spec (core/opensearch/spec.ts, route-spec.ts: the
 * provisioner's custom-resource JSON and the construct's props) and the transform's routes (transform-env.ts). So a
 * value one refuses, the others refuse too, in the same words: `<path> is <value>; expected <what>. <hint>`.
 *
 * `path` is where the profile holds the setting; `specPath` where the OpenSearch spec's input holds it (`[]` stands
 * for a position in a list: `routes[2].retentionDays`).
 */
import { indexStemProblem, OPENSEARCH_OWN_INDEX_STEMS, stemCovers, stemsClash } from './index-naming';

/** The longest any retention or expiry may be: 100 years, in days. */
export const MAX_RETENTION_DAYS = 36_500;

interface RuleBase {
  /** Where the profile holds the setting. @default - the profile has no such setting (the spec derives it) */
  readonly path?: string;
  /** Where the OpenSearch spec's input holds it. @default - the spec has no such setting */
  readonly specPath?: string;
  /** What to do about a bad value: the sentence after what was expected. */
  readonly hint: string;
}

/** An integer in `[min, max]`. */
export interface IntRule extends RuleBase {
  readonly kind: 'int';
  readonly min: number;
  readonly max: number;
}

/** A string of a fixed form. */
export interface PatternRule extends RuleBase {
  readonly kind: 'pattern';
  readonly pattern: RegExp;
  /** The form, in words. */
  readonly expected: string;
}

/** The stem of a family of indices (`<stem>-<rotation suffix>`), by OpenSearch's index name rules and kfek's. */
export interface StemRule extends RuleBase {
  readonly kind: 'index-stem';
}

/**
 * A list of OpenSearch backend roles (or users) mapped to a role. The security plugin matches each member as a pattern
 * (ConfigModelV7's role mappings go through WildcardMatcher): `*` and `?` are wildcards and `/.../` is a regular
 * expression, so `"*"` would map every signed-in user to the role.
 */
export interface MembersRule extends RuleBase {
  readonly kind: 'members';
  /** The form of one member. */
  readonly pattern: RegExp;
  readonly expected: string;
  /** The role the members are mapped to, as a problem names it. */
  readonly role: string;
}

export type ConfigRule = IntRule | PatternRule | StemRule | MembersRule;

// An IAM role or user ARN, the form fine-grained access control matches as a backend role for SigV4 requests.
const IAM_PRINCIPAL_ARN = /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]{1,512}$/;
// A backend role: an IAM role ARN or a (SAML) group name, without blanks at either end (they never match).
const BACKEND_ROLE = /^\S(?:.{0,254}\S)?$/;
const BACKEND_ROLE_HINT = 'an IAM role ARN or a group name (1-256 characters, no spaces at either end)';
const MILLIS = 'Use milliseconds, e.g. 5000 for 5 s.';
const days = (path: string, specPath: string | undefined, hint: string): IntRule => ({
  kind: 'int',
  path,
  ...(specPath === undefined ? {} : { specPath }),
  min: 1,
  max: MAX_RETENTION_DAYS,
  hint,
});
const millis = (key: string): IntRule => ({
  kind: 'int',
  path: `openSearch.indexTemplate.${key}`,
  specPath: `indexTemplate.${key}`,
  min: 1,
  max: 3_600_000,
  hint: MILLIS,
});

/** The rules, by setting. */
export const CONFIG_RULES = {
  indexPrefix: {
    kind: 'pattern',
    path: 'delivery.indexPrefix',
    specPath: 'indexPrefix',
    // OpenSearch index names: lowercase, no \ / * ? " < > | space , #, not starting with - _ +; kfek's own rule
    // keeps them out of the `.` namespace. The prefix is followed by `-` and a date, so a valid prefix gives valid
    // index names (200 + the longest rotation suffix stays under OpenSearch's 255 bytes).
    pattern: /^[a-z0-9][a-z0-9._-]{0,199}$/,
    expected:
      'a lowercase OpenSearch index name prefix (a-z 0-9 . _ -, not starting with . _ -), e.g. "logs"',
    hint: 'Its indices are "<indexPrefix>-2026-11-25".',
  },
  deleteAfterDays: days(
    'openSearch.retention.deleteAfterDays',
    'retention.deleteAfterDays',
    'Set how many days of logs to keep.',
  ),
  warmAfterDays: days(
    'openSearch.retention.warmAfterDays',
    'retention.warmAfterDays',
    'The warm move must come before deletion (warmAfterDays < deleteAfterDays); omit it without UltraWarm.',
  ),
  expireAfterDays: days(
    'failedRecords.expireAfterDays',
    undefined,
    'Set how many days failed records stay replayable (longer than every index retention).',
  ),
  routeRetentionDays: days(
    'routes[].retentionDays',
    'routes[].retentionDays',
    "Set how many days of the route's logs to keep.",
  ),
  keepRetiredHours: {
    kind: 'int',
    // Derived from the streams' retention and failedRecords.expireAfterDays (core/config retiredNamesHours).
    specPath: 'keepRetiredHours',
    min: 0,
    max: 24 * MAX_RETENTION_DAYS,
    hint: 'Use the hours documents may still arrive late.',
  },
  shards: {
    kind: 'int',
    path: 'openSearch.indexTemplate.shards',
    specPath: 'indexTemplate.shards',
    min: 1,
    max: 1024,
    hint: 'One shard per 10-50 GB of daily data is enough.',
  },
  replicas: {
    kind: 'int',
    path: 'openSearch.indexTemplate.replicas',
    specPath: 'indexTemplate.replicas',
    min: 0,
    max: 15,
    hint: 'Use 0 on a one-node domain, 1 otherwise.',
  },
  refreshSeconds: {
    kind: 'int',
    path: 'openSearch.indexTemplate.refreshSeconds',
    specPath: 'indexTemplate.refreshSeconds',
    min: 1,
    max: 3600,
    hint: 'Use 1 for near-realtime search, 5-30 to spend less on refreshes (docs/latency.md).',
  },
  slowSearchWarnMs: millis('slowSearchWarnMs'),
  slowSearchInfoMs: millis('slowSearchInfoMs'),
  slowIndexWarnMs: millis('slowIndexWarnMs'),
  slowIndexInfoMs: millis('slowIndexInfoMs'),
  indexStem: {
    kind: 'index-stem',
    path: 'routes[].indexStem',
    specPath: 'routes[].indexStem',
    hint: 'Use a lowercase name such as "payments" (its indices are "<indexStem>-2026-11-25").',
  },
  readerBackendRoles: {
    kind: 'members',
    path: 'openSearch.access.readerBackendRoles',
    specPath: 'access.readerBackendRoles',
    pattern: BACKEND_ROLE,
    expected: BACKEND_ROLE_HINT,
    role: 'kfek_reader',
    hint: '',
  },
  routeReaderBackendRoles: {
    kind: 'members',
    path: 'routes[].readerBackendRoles',
    specPath: 'routes[].readerBackendRoles',
    pattern: BACKEND_ROLE,
    expected: BACKEND_ROLE_HINT,
    role: "the route's reader role",
    hint: '',
  },
  /**
   * People who administer the domain. The profile names IAM principals (on AWS, people sign their requests); the
   * spec also serves nodes with internal users and groups (the local secured node), so it takes any backend role.
   */
  adminBackendRoles: {
    kind: 'members',
    path: 'openSearch.access.adminBackendRoles',
    specPath: 'access.adminBackendRoles',
    pattern: IAM_PRINCIPAL_ARN,
    expected: 'an IAM role or user ARN such as "arn:aws:iam::123456789012:role/Admin"',
    role: 'all_access',
    hint: '',
  },
} as const satisfies Readonly<Record<string, ConfigRule>>;

/**
 * `rule` as the OpenSearch spec applies it: members of any backend role's form (see `adminBackendRoles`), or of the
 * rule's own form, so the spec never refuses what the config lets through (an IAM ARN may be longer than a group).
 */
export function specForm(rule: MembersRule): MembersRule {
  return {
    ...rule,
    pattern: new RegExp(`${BACKEND_ROLE.source}|${rule.pattern.source}`),
    expected: BACKEND_ROLE_HINT,
  };
}

const sentence = (hint: string): string => (hint === '' ? '' : ` ${hint}`);

/** The problem of `value` at `path` by `rule`, or undefined when it follows it. `max` narrows the rule's bound. */
export function intProblem(rule: IntRule, path: string, value: unknown, max = rule.max): string | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= rule.min && value <= max) {
    return undefined;
  }
  return `${path} is ${JSON.stringify(value)}; expected an integer from ${rule.min} to ${max}.${sentence(rule.hint)}`;
}

export function patternProblem(rule: PatternRule, path: string, value: unknown): string | undefined {
  if (typeof value === 'string' && rule.pattern.test(value)) return undefined;
  return `${path} is ${JSON.stringify(value)}; expected ${rule.expected}.${sentence(rule.hint)}`;
}

/** The problem of an index stem; `example` (the route's name) makes the hint concrete. */
export function stemProblem(path: string, value: unknown, example?: string): string | undefined {
  const rule = CONFIG_RULES.indexStem;
  const hint = example === undefined ? rule.hint : rule.hint.replace('"payments"', JSON.stringify(example));
  if (typeof value !== 'string' || value === '') {
    return `${path} is ${JSON.stringify(value)}; expected the stem of the route's index names, e.g. "payments" for payments-2026-11-25.`;
  }
  const fault = indexStemProblem(value);
  return fault === undefined ? undefined : `${path} is ${JSON.stringify(value)}: ${fault}. ${hint}`;
}

/**
 * The problems of a list of members at `path` by `rule`, and the members read (`''` for a bad one). A member with a
 * wildcard is refused with its own reason, since the security plugin would read it as a pattern.
 */
export function membersProblems(
  rule: MembersRule,
  path: string,
  list: unknown,
  role: string = rule.role,
): { readonly members: string[]; readonly problems: string[] } {
  if (!Array.isArray(list)) {
    return { members: [], problems: [`${path} is ${JSON.stringify(list)}; expected an array.`] };
  }
  const problems: string[] = [];
  const members = (list as unknown[]).map((value, i) => {
    const at = `${path}[${i}]`;
    if (typeof value === 'string' && (/[*?]/.test(value) || /^\/.*\/$/.test(value))) {
      problems.push(
        `${at} is ${JSON.stringify(value)}; the security plugin reads a backend role with "*" or "?" as a wildcard ` +
          `(and /.../ as a regular expression), so it would map users it was never meant for to ${role}. ` +
          `List each IAM role ARN or group exactly, as ${rule.expected}.`,
      );
      return '';
    }
    if (typeof value !== 'string' || !rule.pattern.test(value)) {
      problems.push(`${at} is ${JSON.stringify(value)}; expected ${rule.expected}.`);
      return '';
    }
    return value;
  });
  return { members, problems };
}

/** A family of indices as the stem rules see it: where its stem is set, and the stem. */
export interface StemSite {
  /** Where the stem is set: `routes[1].indexStem`, `delivery.indexPrefix`. */
  readonly path: string;
  readonly stem: string;
  /** Said after the path when another stem names this one: the route's name in quotes, or `the default route`. */
  readonly aside: string;
}

/**
 * Stems that cannot be kfek's together: equal to another's (the default route's prefix first), or extending one with
 * a digit (which would take that stem's own indices, `logs-2026-...`), or overlapping the indices OpenSearch keeps
 * outside the `.` namespace (kfek's retention would delete them, its readers read them). Stems that extend one
 * another with a letter are fine: every index belongs to the longest stem it starts with (issue 30,
 * core/opensearch/families.ts). An empty stem (refused on its own) is skipped.
 */
export function stemsApartProblems(sites: readonly StemSite[]): string[] {
  const problems: string[] = [];
  sites.forEach(({ path, stem }, i) => {
    if (stem === '') return;
    for (const own of OPENSEARCH_OWN_INDEX_STEMS) {
      if (!stemCovers(own, stem) && !stemCovers(stem, own)) continue;
      const how = stemCovers(own, stem)
        ? `"${own}-*" also matches "${stem}-2026-11-25"`
        : `"${stem}-*" also matches "${own}-2026-11-25"`;
      problems.push(
        `${path} ${JSON.stringify(stem)} and OpenSearch's own ${own}-* indices overlap: ${how}, so kfek's ` +
          `retention policy would delete OpenSearch's indices or its readers read them. Use a stem that neither ` +
          `starts with "${own}-" nor is the start of it.`,
      );
    }
    for (const other of sites.slice(0, i)) {
      const clash = other.stem === '' ? undefined : stemsClash(other.stem, stem);
      if (clash === undefined) continue;
      problems.push(
        `${path} ${JSON.stringify(stem)} and ${other.path} (${other.aside}) ${JSON.stringify(other.stem)} cannot ` +
          `both be stems: ${clash}. Use another stem; one stem may extend another with "-" and a letter ` +
          `("${other.stem}-audit").`,
      );
    }
  });
  return problems;
}

/** The slow-log thresholds: each INFO threshold must be below its WARN one. `at` is the section's path. */
export function slowLogOrderProblems(
  at: string,
  t: Readonly<
    Record<'slowSearchInfoMs' | 'slowSearchWarnMs' | 'slowIndexInfoMs' | 'slowIndexWarnMs', number>
  >,
): string[] {
  return (['Search', 'Index'] as const).flatMap((kind) => {
    const info = t[`slow${kind}InfoMs`];
    const warn = t[`slow${kind}WarnMs`];
    return info < warn
      ? []
      : [
          `${at}.slow${kind}InfoMs (${info}) must be below slow${kind}WarnMs (${warn}): INFO logs the slower ` +
            'operations first, WARN only the slowest.',
        ];
  });
}
