/**
 * Bounds of the `openSearch` settings that come from elsewhere: the smallest total-fields limit kfek's own
 * documents fit in (core/opensearch/mappings.ts owns it), and the EBS volume sizes OpenSearch Service allows per
 * data node instance type.
 */
import {
  aggregatableFieldsProblems,
  MIN_TOTAL_FIELDS_LIMIT,
  TOTAL_FIELDS_LIMIT_RULE,
  totalFieldsLimitProblem,
} from '../opensearch/mappings';
import type { Reader } from './reader';
import type { OpenSearchConfig } from './types';

/** Reads `openSearch.indexTemplate.totalFieldsLimit` by its rule (core/opensearch/mappings.ts). */
export function readTotalFieldsLimit(r: Reader): number {
  const path = TOTAL_FIELDS_LIMIT_RULE.path;
  const value = r.raw(path);
  const problem = totalFieldsLimitProblem(path, value);
  if (problem === undefined) return value as number;
  r.problem(problem);
  return MIN_TOTAL_FIELDS_LIMIT;
}

/**
 * Reads `openSearch.indexTemplate.aggregatableFields`: app field paths, each once (core/opensearch/mappings.ts holds
 * the rule, which the provisioner's spec checks too).
 */
export function readAggregatableFields(r: Reader): string[] {
  const path = 'openSearch.indexTemplate.aggregatableFields';
  const paths = r.strings(path);
  for (const problem of aggregatableFieldsProblems(path, paths)) r.problem(problem);
  return paths;
}

const TIB = 1024;

/**
 * Largest gp3 volume (GiB) per data node instance type, by family and size; the smallest is 10 GiB for all of them.
 * From "EBS volume size quotas" in the OpenSearch Service Developer Guide
 * (https://docs.aws.amazon.com/opensearch-service/latest/developerguide/limits.html#ebsresource), as the guide's
 * source holds it (awsdocs/amazon-opensearch-service-developer-guide, doc_source/limits.md, last refreshed
 * 2023-09-01): the "Maximum EBS size (gp3)" column, since kfek gives every data node a gp3 volume
 * (lib/constructs/search-domain.ts). `'no gp3'`: the table lists no gp3 size (gp2 or magnetic only); `'no EBS'`:
 * instance storage only.
 *
 * Families that table does not list (m7g, r7g, c7g, or1, ...) are not guessed: {@link checkVolumeSize} accepts any
 * size for them and leaves the check to OpenSearch Service at deploy time.
 */
const GP3_MAX_GIB: Readonly<Record<string, Readonly<Record<string, number | 'no gp3' | 'no EBS'>>>> = {
  t2: { micro: 'no gp3', small: 'no gp3', medium: 'no gp3' },
  t3: { small: 100, medium: 200 },
  m3: { medium: 'no gp3', large: 'no gp3', xlarge: 'no gp3', '2xlarge': 'no gp3' },
  m4: { large: 'no gp3', xlarge: 'no gp3', '2xlarge': 'no gp3', '4xlarge': 'no gp3', '10xlarge': 'no gp3' },
  m5: { large: 1 * TIB, xlarge: 2 * TIB, '2xlarge': 3 * TIB, '4xlarge': 6 * TIB, '12xlarge': 18 * TIB },
  m6g: {
    large: 1 * TIB,
    xlarge: 2 * TIB,
    '2xlarge': 3 * TIB,
    '4xlarge': 6 * TIB,
    '8xlarge': 12 * TIB,
    '12xlarge': 18 * TIB,
  },
  c4: { large: 'no gp3', xlarge: 'no gp3', '2xlarge': 'no gp3', '4xlarge': 'no gp3', '8xlarge': 'no gp3' },
  c5: {
    large: 256,
    xlarge: 512,
    '2xlarge': 1 * TIB,
    '4xlarge': 1.5 * TIB,
    '9xlarge': 3.5 * TIB,
    '18xlarge': 7 * TIB,
  },
  c6g: {
    large: 256,
    xlarge: 512,
    '2xlarge': 1 * TIB,
    '4xlarge': 1.5 * TIB,
    '8xlarge': 3 * TIB,
    '12xlarge': 4.5 * TIB,
  },
  r3: { large: 'no gp3', xlarge: 'no gp3', '2xlarge': 'no gp3', '4xlarge': 'no gp3', '8xlarge': 'no gp3' },
  r4: {
    large: 'no gp3',
    xlarge: 'no gp3',
    '2xlarge': 'no gp3',
    '4xlarge': 'no gp3',
    '8xlarge': 'no gp3',
    '16xlarge': 'no gp3',
  },
  r5: { large: 2 * TIB, xlarge: 3 * TIB, '2xlarge': 6 * TIB, '4xlarge': 12 * TIB, '12xlarge': 24 * TIB },
  r6g: {
    large: 2 * TIB,
    xlarge: 3 * TIB,
    '2xlarge': 6 * TIB,
    '4xlarge': 12 * TIB,
    '8xlarge': 16 * TIB,
    '12xlarge': 24 * TIB,
  },
  r6gd: Object.fromEntries(
    ['large', 'xlarge', '2xlarge', '4xlarge', '8xlarge', '12xlarge', '16xlarge'].map((s) => [
      s,
      'no EBS' as const,
    ]),
  ),
  i2: { xlarge: 'no gp3', '2xlarge': 'no gp3' },
  i3: Object.fromEntries(
    ['large', 'xlarge', '2xlarge', '4xlarge', '8xlarge', '16xlarge'].map((s) => [s, 'no EBS' as const]),
  ),
};

/** The smallest EBS volume OpenSearch Service allows on every instance type of the table (GiB). */
export const MIN_VOLUME_GIB = 10;

/** The largest gp3 volume of any instance type in the table (GiB): the upper bound for `openSearch.volumeSizeGb`. */
export const MAX_VOLUME_GIB = Math.max(
  ...Object.values(GP3_MAX_GIB).flatMap((sizes) => Object.values(sizes).filter((v) => typeof v === 'number')),
);

/** The table's entry for `<family>.<size>.search`, or undefined when the table does not list the type. */
function gp3Limit(instanceType: string): number | 'no gp3' | 'no EBS' | undefined {
  const [family, size] = instanceType.split('.');
  const sizes = Object.hasOwn(GP3_MAX_GIB, family) ? GP3_MAX_GIB[family] : undefined;
  return sizes !== undefined && Object.hasOwn(sizes, size) ? sizes[size] : undefined;
}

/** Refuses a data node type that cannot have kfek's gp3 volume, or a volume size that type cannot have. */
export function checkVolumeSize(
  r: Reader,
  os: Pick<OpenSearchConfig, 'dataNodeInstanceType' | 'volumeSizeGb'>,
): void {
  const type = os.dataNodeInstanceType;
  const limit = gp3Limit(type);
  if (limit === undefined) return;
  if (limit === 'no EBS' || limit === 'no gp3') {
    const what =
      limit === 'no EBS'
        ? 'has instance storage and no EBS volume'
        : 'cannot have a gp3 EBS volume (OpenSearch Service allows it gp2 or magnetic only)';
    r.problem(
      `openSearch.dataNodeInstanceType ${JSON.stringify(type)} ${what}, but kfek gives every data node a gp3 ` +
        'volume of openSearch.volumeSizeGb. Use a type with gp3 EBS storage, such as "t3.small.search", ' +
        '"m6g.large.search" or "r6g.large.search".',
    );
    return;
  }
  if (os.volumeSizeGb > limit) {
    r.problem(
      `openSearch.volumeSizeGb is ${os.volumeSizeGb} but openSearch.dataNodeInstanceType ${JSON.stringify(type)} ` +
        `takes a gp3 EBS volume of ${MIN_VOLUME_GIB} to ${limit} GiB (OpenSearch Service's EBS volume size quotas). ` +
        'Use a size in that range, a larger instance type, or more data nodes.',
    );
  }
}
