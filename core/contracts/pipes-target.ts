/**
 * The EventBridge pipe's target contract: where the Pipes enrichment (lambda/transform/pipes-batch.ts) puts each
 * item's events-stream partition key, and where the pipe reads it. The pipe (lib/constructs/pipes-transport.ts)
 * and its local stand-in (scripts/local/pipes-loop.ts) both read this one constant.
 */

/**
 * JSON path of each item's partition key, as the pipe's Kinesis target parameters name it
 * (`kinesisStreamParameters.partitionKey`, a dynamic path parameter).
 */
export const PIPES_PARTITION_KEY_PATH = '$.kfek.partitionKey';
