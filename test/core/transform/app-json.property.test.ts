/**
 * Property: every app JSON text is written into the document in one form (core/transform/app-json.ts), whichever
 * way it takes: the one-pass copy (`canonicalMembersText`) when the text already is in that form, else the
 * member-by-member rewrite (`appMemberList`). Random object texts are written by hand here, with what
 * JSON.stringify never writes: keys twice in one object, whitespace between tokens, escaped characters (`\u0061`,
 * `\/`), numbers in other forms (`1.0`, `-0`, `1E2`, `1e400`, beyond 2^53), array-index keys and lone surrogates
 * left raw. The oracle is JavaScript itself: the result, with each number put in JavaScript's form, is exactly
 * `JSON.stringify(JSON.parse(text))`, and every number the result writes is one the text wrote.
 */
import fc from 'fast-check';
import { appMemberList, canonicalMembersText } from '../../../core/transform/app-json';

/** What the generator wrote into a text. */
interface Written {
  readonly text: string;
  /** Some object has a key twice. */
  readonly duplicate: boolean;
  /** Some number has an exponent. */
  readonly exponent: boolean;
}

type StringForm = 'plain' | 'unicode' | 'slash' | 'raw';

const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const someText = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: anyCodeUnit, maxLength: 6 }));
const stringForm = fc.constantFrom<StringForm>('plain', 'plain', 'unicode', 'slash', 'raw');

/**
 * A JSON string literal for `s`: as JSON.stringify writes it, every code unit as `\uXXXX`, with `/` escaped,
 * or with lone surrogates left raw (JSON.stringify escapes them; JSON.parse accepts both).
 */
function literal(s: string, form: StringForm): string {
  const stringified = JSON.stringify(s);
  switch (form) {
    case 'plain':
      return stringified;
    case 'unicode':
      return `"${Array.from({ length: s.length }, (_, i) => `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`;
    case 'slash':
      return stringified.replace(/\//g, '\\/');
    case 'raw':
      // An escape starts after an even number of backslashes (an odd count would make it a literal backslash).
      return stringified.replace(
        /(?<!\\)((?:\\\\)*)\\u(d[89a-f][0-9a-f]{2})/g,
        (_, even: string, hex: string) => `${even}${String.fromCharCode(parseInt(hex, 16))}`,
      );
  }
}

const blank = fc.constantFrom('', '', '', ' ', '\n  ', '\t', ' \r\n');
const key = fc.oneof(
  fc.constantFrom('a', 'b', 'message', 'x:y', 'q"u', '__proto__', '7', 'e', 'true', '{', 'ü', 'a\\b'),
  someText,
);

const scalar: fc.Arbitrary<Written> = fc.oneof(
  fc.integer().map((n) => ({ text: String(n), duplicate: false, exponent: false })),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => {
    const text = JSON.stringify(n);
    return { text, duplicate: false, exponent: /e/i.test(text) };
  }),
  fc
    .constantFrom('1.0', '-0', '0.50', '12345678901234567890', '-1.25')
    .map((text) => ({ text, duplicate: false, exponent: false })),
  fc
    .constantFrom('1e400', '1E2', '-1.5e-3', '2e+1')
    .map((text) => ({ text, duplicate: false, exponent: true })),
  fc.constantFrom('true', 'false', 'null').map((text) => ({ text, duplicate: false, exponent: false })),
  fc
    .tuple(someText, stringForm)
    .map(([s, form]) => ({ text: literal(s, form), duplicate: false, exponent: false })),
);

interface Member {
  readonly key: string;
  readonly keyForm: StringForm;
  readonly value: Written;
  readonly blanks: readonly [string, string, string, string];
}

const blanks4 = fc.tuple(blank, blank, blank, blank);

function objectText(members: readonly Member[], inner: string): Written {
  const keys = new Set(members.map((m) => m.key));
  return {
    text: `{${members.map((m) => `${m.blanks[0]}${literal(m.key, m.keyForm)}${m.blanks[1]}:${m.blanks[2]}${m.value.text}${m.blanks[3]}`).join(',')}${members.length === 0 ? inner : ''}}`,
    duplicate: keys.size !== members.length || members.some((m) => m.value.duplicate),
    exponent: members.some((m) => m.value.exponent),
  };
}

const { value } = fc.letrec<{ value: Written; object: Written; array: Written }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('object'), tie('array')),
  object: fc
    .tuple(
      fc.array(fc.record({ key, keyForm: stringForm, value: tie('value'), blanks: blanks4 }), {
        maxLength: 5,
      }),
      blank,
    )
    .map(([members, inner]) => objectText(members, inner)),
  array: fc
    .tuple(fc.array(fc.tuple(blank, tie('value'), blank), { maxLength: 4 }), blank)
    .map(([elements, inner]) => ({
      text: `[${elements.map(([a, v, b]) => `${a}${v.text}${b}`).join(',')}${elements.length === 0 ? inner : ''}]`,
      duplicate: elements.some(([, v]) => v.duplicate),
      exponent: elements.some(([, v]) => v.exponent),
    })),
}));

/** A top-level object that often has a `message` member, sometimes twice, sometimes with an escaped key. */
const topLevel = fc
  .tuple(
    fc.array(fc.record({ key, keyForm: stringForm, value, blanks: blanks4 }), { maxLength: 6 }),
    fc.option(
      fc.record({
        at: fc.nat(),
        keyForm: stringForm,
        value: fc.oneof(
          scalar,
          fc
            .tuple(someText, stringForm)
            .map(([s, f]) => ({ text: literal(s, f), duplicate: false, exponent: false })),
        ),
        blanks: blanks4,
      }),
    ),
    blank,
    blank,
  )
  .map(([members, message, inner, after]) => {
    const all = [...members];
    if (message !== null) {
      all.splice(message.at % (all.length + 1), 0, { key: 'message', ...message });
    }
    const messageKeysAsWritten = all.filter((m) => m.key === 'message').every((m) => m.keyForm !== 'unicode');
    return { ...objectText(all, inner), messageKeysAsWritten, after };
  });

/** The number tokens of a JSON text, in order (strings skipped). */
function numberTokens(json: string): string[] {
  const tokens: string[] = [];
  const pattern = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  for (const match of json.matchAll(pattern)) if (!match[0].startsWith('"')) tokens.push(match[0]);
  return tokens;
}

/** The JSON text with every number in JavaScript's form (`1.0` -> `1`), as JSON.stringify would write it. */
function jsNumbers(json: string): string {
  return json.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (token) =>
    token.startsWith('"') ? token : JSON.stringify(Number(token)),
  );
}

/**
 * V8 13.x (Node.js 24, Lambda's nodejs24.x) may decode an escaped object key through an earlier escaped key of the
 * same shape (`{"\\n":1}` read back as `{"\\\\":1}` after a `"\\\\"` key was parsed: nodejs/node#63785, open). On
 * such an engine JSON.parse is no oracle for a text with an escaped key, so those cases are skipped there; app-json
 * decodes keys as string values, which the bug does not touch. Reported from V8 12.8 (Node.js 22/24) to 14.6 (26); a
 * probe is unreliable (the bug depends on what the process parsed before), so the V8 version decides.
 */
const ESCAPED_KEY_BUG = Number(process.versions.v8.split('.')[0]) >= 12;
const ESCAPED_KEY = /"(?:[^"\\]|\\.)*\\(?:[^"\\]|\\.)*"\s*:/;

describe('app-json (property)', () => {
  it('writes any text in the form JSON.stringify gives, numbers as written; the one-pass copy agrees', () => {
    let copied = 0;
    let rewritten = 0;
    let skipped = 0;
    fc.assert(
      fc.property(topLevel, (written) => {
        const text = written.text + written.after;
        if (ESCAPED_KEY_BUG && ESCAPED_KEY.test(text)) {
          skipped++;
          return;
        }
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const dropMessage = typeof parsed.message === 'string';

        const list = appMemberList(text);
        const kept = list.members.filter((m) => !(dropMessage && m.key === 'message'));
        const document = `{${kept.map((m) => m.json).join(',')}}`;
        const expected = { ...parsed };
        if (dropMessage) delete expected.message;

        // The form: JSON.stringify's, once numbers are put in JavaScript's form.
        expect(jsNumbers(document)).toBe(JSON.stringify(expected));
        // The numbers: each written as the text wrote it (or null for one JSON.parse reads as Infinity).
        const writtenNumbers = numberTokens(text);
        for (const token of numberTokens(document)) expect(writtenNumbers).toContain(token);
        // The flag is never missing (it may be set by a value a later duplicate key replaced).
        const differs = numberTokens(document).some((t) => String(Number(t)) !== t);
        expect(list.numbersAsWritten || !differs).toBe(true);
        rewritten++;

        const copy = canonicalMembersText(text, written.text.length - 1, parsed, dropMessage);
        if (copy === undefined) return;
        copied++;
        expect(`{${copy.text}}`).toBe(document);
        expect(copy.numbersAsWritten).toBe(list.numbersAsWritten);
      }),
      { numRuns: 3000, seed: -6066086 },
    );
    // Hand-written texts are mostly not in the document's form; the next property covers the copy at length.
    expect(copied).toBeGreaterThan(20);
    expect(rewritten + skipped).toBe(3000);
    expect(rewritten).toBeGreaterThan(500);
  });

  it('copies text a JSON logger writes (JSON.stringify, numbers in other forms) as the rewrite writes it', () => {
    let copied = 0;
    const decimal = fc
      .tuple(
        fc.boolean(),
        fc.nat({ max: 10 ** 9 }),
        fc.stringMatching(/^\d{0,12}$/),
        fc.constantFrom('', 'e5', 'E-7', 'e+21'),
      )
      .map(
        ([minus, whole, fraction, exponent]) =>
          `${minus ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}${exponent}`,
      );
    const forms = fc.oneof(fc.constantFrom('1.0', '-0', '0.50', '12345678901234567890', '2.5', '7'), decimal);
    fc.assert(
      fc.property(
        fc.object({ maxDepth: 3 }),
        fc.array(forms, { minLength: 1, maxLength: 8 }),
        (object, numbers) => {
          let n = 0;
          // Every number JSON.stringify wrote becomes one of the forms a logger may write.
          const text = JSON.stringify(object).replace(
            /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g,
            (token) => (token.startsWith('"') ? token : numbers[n++ % numbers.length]),
          );
          const parsed = JSON.parse(text) as Record<string, unknown>;
          const list = appMemberList(text);
          const copy = canonicalMembersText(text, text.length - 1, parsed, false);
          if (copy === undefined) return;
          copied++;
          expect(copy.text).toBe(list.members.map((m) => m.json).join(','));
          expect(copy.numbersAsWritten).toBe(list.numbersAsWritten);
        },
      ),
      { numRuns: 2000 },
    );
    expect(copied).toBeGreaterThan(500);
  });
});
