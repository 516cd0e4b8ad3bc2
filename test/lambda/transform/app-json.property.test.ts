/**
 * Property: the app's JSON text is reused exactly when it means the parsed object (lambda/transform/app-json.ts),
 * and then it means exactly that. Random object texts are written by hand here, with what JSON.stringify never
 * writes: keys twice in one object, whitespace between tokens, escaped characters (`\u0061`, `\/`), numbers in
 * other forms (`1.0`, `1E2`, `1e400`) and lone surrogates left raw. The generator records which of those it wrote,
 * and that record, not the scanner, decides whether the text must be used.
 */
import fc from 'fast-check';
import { appMembersText } from '../../../lambda/transform/app-json';

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

describe('appMembersText (property)', () => {
  it('reuses the text exactly when it means the parsed object, and then it means exactly that', () => {
    let reused = 0;
    fc.assert(
      fc.property(topLevel, (written) => {
        const text = written.text + written.after;
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const dropMessage = typeof parsed.message === 'string';
        const result = appMembersText(text, written.text.length - 1, parsed, dropMessage);

        const usable =
          !written.duplicate &&
          !written.exponent &&
          text.isWellFormed() &&
          (!dropMessage || written.messageKeysAsWritten);
        expect(result !== undefined).toBe(usable);
        if (result === undefined) return;
        reused++;
        const expected = JSON.parse(text) as Record<string, unknown>;
        if (dropMessage) delete expected.message;
        // Same keys, order and values: JSON.stringify of both parses (numbers such as 1.0 and 1 parse alike).
        expect(JSON.stringify(JSON.parse(`{${result}}`))).toBe(JSON.stringify(expected));
      }),
      { numRuns: 3000 },
    );
    // The property must not hold by always falling back.
    expect(reused).toBeGreaterThan(300);
  });
});
