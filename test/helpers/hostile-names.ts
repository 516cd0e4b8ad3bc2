/**
 * Generated names for the request-path tests (issue 39): the pieces that have turned a name into another request
 * (separators, dot segments, escapes of both, invisible characters) mixed with ordinary name parts, so a run holds
 * hostile and legal names of every shape.
 */
import fc from 'fast-check';
import { RequestPathError } from '../../core/opensearch/request-path';

/** Pieces that address something else once a hop resolves or decodes them. */
export const HOSTILE_PIECES = [
  ...['..', '.', '/', '\\', ',', '*', '?', '#', ':'],
  ...['%2c', '%2C', '%2f', '%2e%2e', '%25', '%', '%41'],
  ...[' ', '\t', '\u0000', '\u007f', '\u200b', '\u00ad', '\u202e', '\u00a0'],
] as const;

/** Ordinary parts of names, some of them the objects the tests plant, some non-ASCII. */
export const ORDINARY_PIECES = [
  'logs-a',
  'victim',
  'kfek-x',
  'all_access',
  'b',
  '2026.11',
  '\u00e9t\u00e9',
  '\u{1F600}',
];

/** A name of 1-`maxPieces` pieces; `extra` adds pieces of the caller's (e.g. any short string). */
export function generatedName(
  maxPieces = 8,
  extra: readonly fc.Arbitrary<string>[] = [],
): fc.Arbitrary<string> {
  return fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...ORDINARY_PIECES) },
        fc.constantFrom(...HOSTILE_PIECES),
        fc.constantFrom('+', '-', '_', '~', "'", '(', '!', '&', '=', ';', '@', '$', '"', '|'),
        ...extra,
      ),
      { minLength: 1, maxLength: maxPieces },
    )
    .map((parts) => parts.join(''));
}

/** Whether building a path threw the builder's refusal (core/opensearch/request-path.ts). */
export function refused(build: () => string): boolean {
  try {
    build();
    return false;
  } catch (error) {
    return error instanceof RequestPathError;
  }
}
