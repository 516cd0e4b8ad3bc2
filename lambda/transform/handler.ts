/**
 * Entry point for the Kinesis event source mapping on the raw stream (enable `ReportBatchItemFailures`): the
 * mapping's events go to kinesis-handler.ts.
 *
 * A pipe calls with an array: during a switch from `pipes` to `lambda` the pipe being removed calls this function
 * until CloudFormation's cleanup (issue 30.5). It gets the answer the Pipes handler gives (pipes.ts, loaded only
 * then), so its batches succeed instead of failing into its dead-letter queue.
 */
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { handleMappingEvent } from './kinesis-handler';

export { BUDGET_SAFETY_MARGIN_MS } from './budget';

export async function handler(
  event: KinesisStreamEvent,
  context: Context,
): Promise<KinesisStreamBatchResponse> {
  if (Array.isArray(event)) return (await import('./pipes')).handler(event, context) as never;
  return handleMappingEvent(event, context);
}
