/** The backfill's pricing lives with the cost model it prices with (core/contracts/backfill-cost.ts). */
export { estimateCost, estimateDuration } from '../../core/contracts/backfill-cost';
