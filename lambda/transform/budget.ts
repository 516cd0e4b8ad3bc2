/**
 * The I/O budget of one invocation, shared by both entry points (Kinesis handler and Pipes enrichment).
 */
import type { Context } from 'aws-lambda';

/**
 * Time kept back from the invocation's remaining time: enough to flush metrics and answer (a partial batch
 * response, or the Pipes items) before Lambda's timeout, which would otherwise retry the whole batch.
 */
export const BUDGET_SAFETY_MARGIN_MS = 1_000;

/** Milliseconds the invocation can still spend on I/O. */
export function remainingBudget(context: Pick<Context, 'getRemainingTimeInMillis'>): () => number {
  return () => context.getRemainingTimeInMillis() - BUDGET_SAFETY_MARGIN_MS;
}
