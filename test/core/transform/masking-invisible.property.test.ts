/**
 * Invisible format characters cannot split a secret (issue 39, core/transform/invisible.ts): masking removes them
 * from its view of a text before any detector decides, and the stored text is that view. Property: any of them,
 * inserted anywhere in a secret a detector (built-in or custom) masks, in a plain message or a JSON one (raw or
 * written as a `\u` escape), still masks it, and what is stored holds neither the secret nor an invisible character.
 */
import fc from 'fast-check';
import { MASK_DETECTORS } from '../../../core/contracts/routes';
import { hasInvisible } from '../../../core/transform/invisible';
import { Masker, maskMessage } from '../../../core/transform/masking';

/** Every invisible format character kfek removes, by range ends and a few inside (invisible.ts). */
const INVISIBLE = [
  0xad, 0x61c, 0x180e, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202c, 0x202e, 0x2060, 0x2062, 0x2064,
  0x2066, 0x2069, 0x206f, 0xfeff, 0xfff9, 0xfffb, 0x13430, 0x1343f, 0x1bca0, 0x1d173, 0x1d17a, 0xe0001,
  0xe0020, 0xe0041, 0xe007f,
].map((point) => String.fromCodePoint(point));

/** A secret, the detector that masks it, and the text around it. */
const SECRETS: ReadonlyArray<readonly [string, string]> = [
  ['carol.smith@example.org', 'email'],
  ['4111 1111 1111 1111', 'creditCard'],
  ['AKIAIOSFODNN7EXAMPLE', 'awsAccessKeyId'],
  ['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'awsSecretKey'],
  ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', 'jwt'],
  ['192.168.10.20', 'ipv4'],
  ['fe80::1ff:fe23:4567:890a', 'ipv6'],
  ['password: hunter2', 'password'],
];

const masker = new Masker({
  detectors: [...MASK_DETECTORS],
  custom: [{ name: 'password', pattern: 'password\\s*[:=]\\s*\\S+' }],
});

function insert(secret: string, chars: ReadonlyArray<readonly [number, string]>): string {
  let out = secret;
  // From the right, so each position is one of the secret's own.
  const at = chars.map(([n, char]) => [n % (secret.length + 1), char] as const);
  for (const [i, char] of at.sort((a, b) => b[0] - a[0])) {
    out = out.slice(0, i) + char + out.slice(i);
  }
  return out;
}

const jsonEscape = (text: string): string =>
  [...text]
    .map((c) =>
      hasInvisible(c)
        ? c
            .split('')
            .map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`)
            .join('')
        : c,
    )
    .join('');

describe('masking sees through invisible format characters', () => {
  test('property: an invisible character anywhere in a secret does not hide it, in text or JSON', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SECRETS),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...INVISIBLE)), { minLength: 1, maxLength: 3 }),
        fc.constantFrom('text', 'json', 'json-escaped'),
        ([secret, detector], chars, form) => {
          // GIVEN a secret with invisible characters inside
          const hidden = insert(secret, chars);
          const message =
            form === 'text'
              ? `user said ${hidden} today`
              : `{"note":"${form === 'json' ? hidden : jsonEscape(hidden)}","n":1}`;
          // WHEN it is masked
          const counts: string[] = [];
          const stored = maskMessage(message, masker, (d) => counts.push(d)) ?? message;
          // THEN the detector masked it, and what is stored has neither the secret nor an invisible character
          const value = form === 'text' ? stored : (JSON.parse(stored) as { note: string }).note;
          expect([
            hidden,
            form,
            counts.includes(detector),
            value.includes(secret),
            hasInvisible(value),
          ]).toEqual([hidden, form, true, false, false]);
          expect(value).toContain(`[masked:${detector}]`);
        },
      ),
      { numRuns: 600 },
    );
  });

  test('a JSON member name with an invisible character still names a secret key', () => {
    // GIVEN a secret access key under a name split by a zero-width space
    const message = '{"Secret\u200bAccessKey":"wJalrXUtnFEMIxK7MDENGxbPxRfiCYEXAMPLEKEY"}';
    // WHEN it is masked THEN the value is masked by its name
    expect(maskMessage(message, masker, () => {})).toBe('{"Secret\u200bAccessKey":"[masked:awsSecretKey]"}');
  });

  test('a text with invisible characters and no secret is stored without them', () => {
    expect(maskMessage('order\u200b 42 \u202eshipped', masker, () => {})).toBe('order 42 shipped');
  });

  test('a text without invisible characters or secrets is left as it is', () => {
    expect(maskMessage('order 42 shipped \u00e9\u00a0\u{1F600}', masker, () => {})).toBeUndefined();
  });
});
