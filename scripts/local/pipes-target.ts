/**
 * The pipe stand-in's target: the events stream, written with PutRecords as the pipe's Kinesis target writes the
 * enrichment's answer, one record per item (its JSON), the partition key read from each item with the target's
 * JSON path (core/contracts/pipes-target.ts).
 */
import { type KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { MAX_PARTITION_KEY_CHARS, PIPES_KINESIS_TARGET_MAX_ITEMS } from '../../core/contracts/aws-limits';
import { PipeError, PipeTargetError } from './errors';

/**
 * The keys of a JSON path of the form `$.a.b` (the only form kfek's pipe uses). Pipes accepts more of JSONPath;
 * the stand-in refuses what it does not read rather than reading it differently.
 */
export function jsonPathKeys(path: string): string[] {
  if (!/^\$(\.[A-Za-z_][A-Za-z0-9_-]*)+$/.test(path)) {
    throw new PipeError(
      `partition key path ${JSON.stringify(path)} is not of the form $.field.field; the pipe stand-in reads only ` +
        'dotted paths (core/contracts/pipes-target.ts)',
    );
  }
  return path.slice(2).split('.');
}

/** The value at `keys` in `item`, or undefined. */
function valueAt(item: unknown, keys: readonly string[]): unknown {
  let value = item;
  for (const key of keys) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * The enrichment's answer as the pipe hands it on: an array is a batch of items, `null` (nothing returned) none,
 * anything else one item.
 */
export function answerItems(answer: unknown): unknown[] {
  if (answer === null || answer === undefined) return [];
  return Array.isArray(answer) ? answer : [answer];
}

export interface PipeTargetProps {
  readonly kinesis: KinesisClient;
  readonly streamArn: string;
  /** The target's partition key path, e.g. `$.kfek.partitionKey`. */
  readonly partitionKeyPath: string;
}

/** What one target invocation wrote. */
export interface TargetPut {
  readonly records: number;
}

/** The pipe's Kinesis target. */
export class PipeTarget {
  private readonly keys: string[];

  constructor(private readonly props: PipeTargetProps) {
    this.keys = jsonPathKeys(props.partitionKeyPath);
  }

  /**
   * Writes the items, one record each, in one PutRecords call. Throws {@link PipeTargetError} when the pipe could
   * not deliver all of them: more items than a Kinesis target takes per invocation (Pipes does not invoke the
   * target then: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-batching-concurrency.html), an
   * item whose partition key is missing, empty or too long, a failed call, or any entry Kinesis refused.
   */
  async put(items: readonly unknown[]): Promise<TargetPut> {
    if (items.length > PIPES_KINESIS_TARGET_MAX_ITEMS) {
      throw new PipeTargetError(
        `the enrichment answered with ${items.length} items; a Kinesis target takes at most ` +
          `${PIPES_KINESIS_TARGET_MAX_ITEMS} per invocation, so the pipe does not invoke it`,
      );
    }
    const records = items.map((item, index) => {
      const key = valueAt(item, this.keys);
      if (typeof key !== 'string' || key.length === 0 || key.length > MAX_PARTITION_KEY_CHARS) {
        throw new PipeTargetError(
          `item ${index} of the enrichment's answer has no usable partition key at ${this.props.partitionKeyPath} ` +
            `(found ${JSON.stringify(key)}; Kinesis needs a string of 1 to ${MAX_PARTITION_KEY_CHARS} characters)`,
        );
      }
      return { Data: Buffer.from(JSON.stringify(item), 'utf8'), PartitionKey: key };
    });
    let out;
    try {
      out = await this.props.kinesis.send(
        new PutRecordsCommand({ StreamARN: this.props.streamArn, Records: records }),
      );
    } catch (error) {
      throw new PipeTargetError(`PutRecords to the target ${this.props.streamArn} failed: ${String(error)}`, {
        cause: error,
      });
    }
    const failed = out.FailedRecordCount ?? 0;
    if (failed > 0) {
      const first = out.Records?.find((r) => r.ErrorCode !== undefined);
      throw new PipeTargetError(
        `the target refused ${failed} of ${records.length} records (${first?.ErrorCode ?? 'no error code'}: ` +
          `${first?.ErrorMessage ?? ''})`,
      );
    }
    return { records: records.length };
  }
}
