/**
 * The masking pre-check (`features`, core/transform/mask-detectors.ts) may say "look" for nothing, never "skip"
 * for something: for generated texts built from the pieces secrets are made of, every built-in detector that masks
 * anything in a text has its bit among the text's features, read as text and read with JSON escapes decoded.
 */
import fc from 'fast-check';
import { BUILT_IN_DETECTORS, features } from '../../../core/transform/mask-detectors';

const PIECES = [
  '@',
  '%40',
  '%20',
  'eyJ',
  '.',
  ':',
  '::',
  '-',
  ' ',
  '/',
  '+',
  '=',
  '_',
  '"',
  '\\u0040',
  '\\/',
  '\\u002B',
  '\\n',
  'AKIAIOSFODNN7EXAMPLE',
  'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  '4111 1111 1111 1111',
  '10.0.0.1',
  'AKIA',
  'ASIA',
  'carol',
  'example.org',
  '4111',
  '1111',
  '0',
  '9',
  '192',
  '168',
  'fe80',
  'abcd',
  'Bearer ',
  'eyJhbGciOiJIUzI1NiJ9',
  'wJalrXUtnFEMI',
  'K7MDENG',
  'bPxRfiCY',
  'EXAMPLEKEY',
  'é',
  '\u00a0',
];

const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((parts) => parts.join(''));

/** The JSON-decoded form of a text of these pieces (the escapes above decoded, as JSON.parse would). */
function decoded(t: string): string {
  return t.replace(/\\u([0-9a-fA-F]{4})|\\(.)/g, (_m, hex: string | undefined, ch: string | undefined) =>
    hex !== undefined ? String.fromCharCode(parseInt(hex, 16)) : ch === 'n' ? '\n' : (ch ?? ''),
  );
}

test('a detector that finds something has its bit in the pre-check, as text and with JSON escapes decoded', () => {
  const detectors = Object.values(BUILT_IN_DETECTORS).map((make) => make());
  const keys = fc.constantFrom(undefined, 'SecretAccessKey', 'aws_secret_access_key', 'password');
  fc.assert(
    fc.property(text, keys, (t, key) => {
      for (const detector of detectors) {
        if (detector.feature === 0) continue;
        for (const [input, bits] of [
          [t, features(t)],
          [decoded(t), features(t, true)],
        ] as const) {
          let found = 0;
          detector.mask(input, '<m>', (n) => (found += n), key);
          const missed = found > 0 && (bits & detector.feature) === 0;
          expect(
            missed ? `${detector.name} (key ${String(key)}) missed ${JSON.stringify(input)}` : 'ok',
          ).toBe('ok');
        }
      }
    }),
    { numRuns: 3000 },
  );
});
