/**
 * The AWS service limits kfek's code sizes its work by, with one owner: the transform's writer (lambda/transform),
 * `kfek replay` and `kfek backfill` (cli/), the local stand-ins (scripts/local) and the CDK app (lib/) import them
 * from here.
 */

/** A Kinesis record: at most 1 MiB of data plus partition key (PutRecord/PutRecords). */
export const MAX_KINESIS_RECORD_BYTES = 1024 * 1024;
/** A Kinesis partition key: 1 to 256 Unicode characters. */
export const MAX_PARTITION_KEY_CHARS = 256;
/** One PutRecords call: at most 500 entries ... */
export const MAX_PUT_RECORDS_ENTRIES = 500;
/** ... and 5 MiB in all (data plus partition keys). */
export const MAX_PUT_RECORDS_BYTES = 5 * 1024 * 1024;

/**
 * A pipe does not invoke a Kinesis target with more than 500 results (items) of one batch; the enrichment writes
 * a larger answer itself (lambda/transform/pipes-batch.ts). https://docs.aws.amazon.com/eventbridge/latest/pipes-reference/
 */
export const PIPES_KINESIS_TARGET_MAX_ITEMS = 500;

/**
 * Largest pipe batch size kfek considers safe: a CloudWatch Logs subscription record usually carries tens of
 * events, and 10 records x 50 events stays at {@link PIPES_KINESIS_TARGET_MAX_ITEMS}.
 */
export const PIPES_SAFE_BATCH_SIZE = 10;
