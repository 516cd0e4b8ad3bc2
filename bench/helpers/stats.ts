/** Small helpers every benchmark shares: the median, a forced GC, MiB formatting. */

export const MiB = 1024 * 1024;

export const mb = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Collects garbage when node runs with --expose-gc (as `npm run bench` does); a no-op otherwise. */
export function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect) collect();
}
