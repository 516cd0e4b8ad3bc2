/**
 * What a custom mask's pattern must keep (issue 39): a mask replaces each match by a marker, `[masked:<name>]`, so a
 * line made of short matches becomes a document many times its length, and what a transform pays for a line grows
 * with what it writes and with how many matches it finds. The bound: a match is never shorter than a
 * {@link MAX_MASK_GROWTH}th of its marker, so no line grows more than that many times whatever it holds (masking.ts
 * lets no pattern match inside a marker, so masks never compound). A pattern anchored to the text's start or end
 * (`^\d+$`) matches a text at most once, so its matches may be as short as they like. The config refuses a mask that
 * cannot keep the bound, with the reason, through {@link maskPatternProblem}. CDK-free, no I/O.
 */
import type { RoutePattern } from './route-pattern';

/** The marker that replaces a masked value. */
export function maskMarker(name: string): string {
  return `[masked:${name}]`;
}

/**
 * How many times its length a custom mask may make a text: a marker is at most this many times as long as the
 * shortest match of its pattern. Measured through the transform on 64 KiB lines made of a pattern's shortest matches
 * (bench:processing, "short matches", CPU time): grown 4 times (`b{3}` named `pin`) a line cost 6.4x an ordinary one,
 * 5 times (`b{2}` named `p`) 8.3x, 10 times (`b`) 14.6x.
 */
export const MAX_MASK_GROWTH = 4;

/** The fewest characters a match of a mask named `name` must take. */
export function shortestMaskMatch(name: string): number {
  return Math.ceil(maskMarker(name).length / MAX_MASK_GROWTH);
}

/**
 * Why a custom mask named `name` cannot mask with `pattern` (its matches can be too short for its marker), or
 * undefined when it can.
 */
export function maskPatternProblem(name: string, pattern: RoutePattern): string | undefined {
  const need = shortestMaskMatch(name);
  // A pattern that can match a text only once (anchored to its start or end) writes one marker per text.
  if (pattern.shortest >= need || pattern.once) return undefined;
  const marker = maskMarker(name);
  return (
    `it can match ${pattern.shortest} character${pattern.shortest === 1 ? '' : 's'}, and each match becomes ` +
    `${marker} (${marker.length} characters): a line of such matches would be stored up to ` +
    `${Math.floor(marker.length / Math.max(pattern.shortest, 1))} times its length and cost as many times an ` +
    `ordinary line. A mask named ${JSON.stringify(name)} must match at least ${need} characters ` +
    `(a marker at most ${MAX_MASK_GROWTH} times its match), or be anchored ("^...$"): make the pattern match longer values ` +
    `("\\\\d{${need},}" instead of "\\\\d", "[0-9]{${Math.max(need, 4)}}" instead of "[0-9]{1,4}") or give it a ` +
    'shorter name'
  );
}
