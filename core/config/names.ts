/**
 * Rules for the names a profile holds that AWS or OpenSearch gives a meaning of their own: Region codes, log group
 * names, the S3 key prefixes of kept data and OpenSearch backend roles. Shared by resolve.ts and cross-account.ts,
 * so a name is checked the same way wherever it appears.
 */
import { CONFIG_RULES, type MembersRule, membersProblems } from '../contracts/config-rules';
import { ON_FAILURE_KEY_PREFIX } from '../contracts/kept-data';
import type { Reader } from './reader';
import type { OpenSearchConfig } from './types';

/**
 * A Region code of a partition the AWS SDK knows (its partitions data: aws `us|eu|ap|sa|ca|me|af|il|mx`, aws-cn
 * `cn`, aws-us-gov `us-gov`, the isolated `us-iso`, `us-isob`, `us-isof`, `eu-isoe`, and `eusc-de`), then a compass
 * direction and a number from 1: `eu-west-1`, `us-gov-west-1`, `cn-northwest-1`, `ap-southeast-5`. The SDK's own
 * patterns take any word as the direction (`\w+`), which lets `us-gov-1` or `eu-westwest-1` through; every Region
 * there is uses one of these nine directions.
 */
export const REGION =
  /^(?:us|eu|ap|sa|ca|me|af|il|mx|cn|us-gov|us-iso[bf]?|eu-isoe|eusc-de)-(?:(?:north|south)(?:east|west)?|east|west|central)-[1-9]\d*$/;
export const REGION_HINT =
  'an AWS Region code such as "eu-west-1", "us-gov-west-1" or "cn-north-1" (lowercase: area, direction, number)';

/** CreateLogGroup's pattern and length: https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_CreateLogGroup.html */
export const LOG_GROUP_NAME = /^[\w\-/.#]{1,512}$/;
export const LOG_GROUP_HINT = 'a log group name (1-512 of a-z A-Z 0-9 _ - / . #)';

/** "Log group names can't start with the string aws/" (CreateLogGroup, same page). */
const RESERVED_LOG_GROUP_PREFIX = 'aws/';
/**
 * Log groups AWS itself creates under the reserved prefix and documents as subscribable: X-Ray Transaction Search
 * keeps spans in `aws/spans`, with subscriptions among the CloudWatch Logs features it supports
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch-Transaction-Search-ingesting-span-log-groups.html).
 */
const AWS_CREATED_LOG_GROUPS: readonly string[] = ['aws/spans'];

/**
 * Refuses a log group name under the reserved `aws/` prefix: CloudWatch Logs never creates one for kfek, and one to
 * subscribe exists only when AWS made it, so `aws/lambda/x` is nearly always `/aws/lambda/x` without its slash.
 * `label` is how the problem names the setting (`sources.logGroups[0].name`).
 */
export function checkLogGroupName(r: Reader, label: string, name: string, created: boolean): void {
  if (!name.startsWith(RESERVED_LOG_GROUP_PREFIX)) return;
  if (created) {
    r.problem(
      `${label} ${JSON.stringify(name)} starts with "aws/", which CloudWatch Logs reserves: CreateLogGroup refuses ` +
        `the name. Use a name that does not start with "aws/", such as ${JSON.stringify(`/${name}`)}.`,
    );
  } else if (!AWS_CREATED_LOG_GROUPS.includes(name)) {
    r.problem(
      `${label} ${JSON.stringify(name)} starts with "aws/", which CloudWatch Logs reserves for groups AWS creates ` +
        `itself (kfek subscribes the one it knows to be documented as subscribable: ` +
        `${AWS_CREATED_LOG_GROUPS.join(', ')}); the groups AWS services write for you start with "/aws/". ` +
        `Did you mean ${JSON.stringify(`/${name}`)}?`,
    );
  }
}

/** One S3 key prefix segment: characters S3 documents as safe in keys, and `=`, but not `*` (see {@link prefixFault}). */
const PREFIX_SEGMENT = /^[\w!\-.'()=]+$/;

/** Why `prefix` is no S3 key prefix kfek can keep objects under, or undefined when it is fine. */
function prefixFault(prefix: string): string | undefined {
  if (prefix === '')
    return 'it is empty, which would put these objects at the top of the bucket among every other kind';
  if (prefix.startsWith('/')) return 'it starts with "/", an empty first segment of every key';
  if (prefix.includes('//')) return 'it contains "//", an empty segment';
  const segments = prefix.split('/').slice(0, -1);
  if (segments.some((s) => s === '.' || s === '..')) {
    return 'it has ".." or "." as a path segment, which tools that copy keys to files (aws s3 cp/sync) resolve';
  }
  if (prefix.includes('..'))
    return 'it contains "..", refused anywhere in a prefix so that no key reads as a parent folder';
  // The IAM grants are on `<prefix>*` (lib/constructs/transform-writes.ts): IAM reads a `*` or `?` in the prefix as
  // a wildcard too, so the writer could write beyond its prefix.
  if (prefix.includes('*'))
    return 'it contains "*", which IAM reads as a wildcard in the grant on "<prefix>*"';
  if (!prefix.endsWith('/')) return 'it does not end with "/"';
  if (!segments.every((s) => PREFIX_SEGMENT.test(s))) return 'it has characters outside that set';
  return undefined;
}

/** Reads the S3 key prefix at `path`; `example` (the default) goes into the problem. Returns '' when it is bad. */
export function readPrefix(r: Reader, path: string, example: string): string {
  const value = r.str(path);
  const fault = prefixFault(value);
  if (fault === undefined) return value;
  if (typeof r.raw(path) === 'string') {
    r.problem(
      `${path} is ${JSON.stringify(value)}; expected an S3 key prefix ending with "/", of segments of letters, ` +
        `digits and !-_.'()= such as ${JSON.stringify(example)} (${fault}).`,
    );
  }
  return '';
}

/**
 * Refuses prefixes of kept data that overlap: equal, or one starting with the other. S3 has no folders, so every
 * key under the longer prefix is also under the shorter one: `kfek replay` lists each kind by its prefix and would
 * read the other kind's objects as its own (and `--delete-after` delete them), and the writer's grant on
 * `<shorter>*` would cover the other kind's objects. Lambda's own on-failure prefix takes part, fixed.
 */
export function checkPrefixesApart(
  r: Reader,
  prefixes: ReadonlyArray<readonly [label: string, prefix: string]>,
): void {
  const all = [...prefixes, [`Lambda's on-failure prefix`, ON_FAILURE_KEY_PREFIX] as const];
  all.forEach(([labelA, a], i) => {
    for (const [labelB, b] of all.slice(i + 1)) {
      if (a === '' || b === '' || !(a.startsWith(b) || b.startsWith(a))) continue;
      const how = a === b ? 'they are equal' : `every key under the longer one is under the shorter one too`;
      r.problem(
        `${labelA} (${JSON.stringify(a)}) and ${labelB} (${JSON.stringify(b)}) overlap: ${how}, so kept objects ` +
          'of two kinds would mix (kfek replay lists each kind by its prefix, and the grant on the shorter prefix ' +
          'covers the other). Use prefixes that do not start with one another, such as the defaults ' +
          `"dead-letter/transform/" and "failed-documents/"; "${ON_FAILURE_KEY_PREFIX}" is Lambda's.`,
      );
    }
  });
}

/** `openSearch.access`: the backend roles of people, each list present only when the profile sets it. */
export function readAccess(r: Reader): OpenSearchConfig['access'] {
  const { adminBackendRoles: admins, readerBackendRoles: readers } = CONFIG_RULES;
  return {
    ...(r.raw(admins.path) === undefined ? {} : { adminBackendRoles: readMembers(r, admins, admins.path) }),
    ...(r.raw(readers.path) === undefined
      ? {}
      : { readerBackendRoles: readMembers(r, readers, readers.path) }),
  };
}

/** Reads the reader backend roles of one route (`routes[i].readerBackendRoles`, given as `value`). */
export function readRouteReaders(r: Reader, path: string, route: string, value: unknown): string[] {
  return readMembers(
    r,
    CONFIG_RULES.routeReaderBackendRoles,
    path,
    `the reader role of route "${route}"`,
    value,
  );
}

/** Reads a list of OpenSearch backend roles by its rule (core/contracts/config-rules.ts `membersProblems`). */
function readMembers(
  r: Reader,
  rule: MembersRule,
  path: string,
  role: string = rule.role,
  list: unknown = r.raw(path),
): string[] {
  const { members, problems } = membersProblems(rule, path, list, role);
  for (const problem of problems) r.problem(problem);
  return members;
}
