/**
 * The app's JSON text written as the document's app members (core/transform/app-json.ts): what the one-pass copy
 * takes as it stands, what it leaves to the rewrite, and what the rewrite writes.
 */
import {
  appMemberList,
  canonicalMembersText,
  keyCount,
  MAX_NESTING,
  MAX_TEXT_DEPTH,
  NestingTooDeepError,
} from '../../../core/transform/app-json';

function members(text: string, dropMessage = false): string | undefined {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return canonicalMembersText(text, text.lastIndexOf('}'), parsed, dropMessage)?.text;
}

describe('keyCount', () => {
  it.each([
    [{}, 0],
    [{ a: 1 }, 1],
    [{ a: { b: 1, c: [{ d: 1 }, { d: 2, e: null }] } }, 6],
    [[{ a: 1 }, 2, [{ b: 1 }]], 2],
    ['text', 0],
    [null, 0],
  ])('%j has %i keys', (value, count) => {
    expect(keyCount(value)).toBe(count);
  });

  it('counts an own __proto__ key', () => {
    expect(keyCount(JSON.parse('{"__proto__":{"x":1},"a":1}'))).toBe(3);
  });
});

describe('canonicalMembersText (the one-pass copy)', () => {
  it('copies compact members as written, numbers in their own form included', () => {
    const text =
      '{"n":1.0,"m":-0,"big":12345678901234567890,"s":"café x:y,}","t":true,"f":false,"z":null,"e":1.5E2}';
    expect(members(text)).toBe(text.slice(1, -1));
  });

  it('flags a number JavaScript would write differently, and only then', () => {
    const copy = (text: string): boolean | undefined =>
      canonicalMembersText(text, text.length - 1, JSON.parse(text) as Record<string, unknown>, false)
        ?.numbersAsWritten;
    expect(copy('{"a":1,"b":-12,"c":2.5,"d":[0,1e+21]}')).toBe(false);
    for (const n of ['1.0', '-0', '12345678901234567890', '1E2', '0.50', '1e-07'])
      expect(copy(`{"a":${n}}`)).toBe(true);
  });

  it('gives no members for an empty object', () => {
    expect(members('{}')).toBe('');
  });

  it.each([
    ['first', '{"message":"m","a":1,"b":2}', '"a":1,"b":2'],
    ['in the middle', '{"a":1,"message":"m","b":2}', '"a":1,"b":2'],
    ['last', '{"a":1,"b":2,"message":"m"}', '"a":1,"b":2'],
    ['alone', '{"message":"m"}', ''],
    ['with escapes in it', '{"a":1,"message":"m, \\"x\\"","b":2}', '"a":1,"b":2'],
  ])('leaves out the top-level message member (%s)', (_, text, expected) => {
    expect(members(text, true)).toBe(expected);
  });

  it('keeps nested message members', () => {
    expect(members('{"message":"m","o":{"message":"n"},"l":[{"message":"k"}]}', true)).toBe(
      '"o":{"message":"n"},"l":[{"message":"k"}]',
    );
  });

  it.each([
    ['a top-level key twice', '{"a":1,"a":2}'],
    ['a nested key twice', '{"o":{"b":1,"c":3,"b":2}}'],
    ['a key twice inside an array element', '{"l":[{"b":1},{"b":1,"b":2}]}'],
    ['message twice', '{"message":"a","message":"b"}'],
    ['a number JSON.parse reads as Infinity', '{"n":1e400}'],
    ['a lone surrogate written raw', '{"s":"\ud800"}'],
    ['whitespace between tokens', '{"a": 1}'],
    ['a line break between members', '{"a":1,\n"b":2}'],
    ['an escape JSON.stringify does not write (\\u00e9)', '{"s":"caf\\u00e9"}'],
    ['an escaped slash', '{"s":"a\\/b"}'],
    ['an upper-case hex escape', '{"s":"\\u001F"}'],
    ['a key JavaScript may order first', '{"b":1,"2":2}'],
    ['a nested key starting with a digit', '{"o":{"b":1,"7x":2}}'],
  ])('is not used with %s (the rewrite takes it)', (_, text) => {
    expect(members(text)).toBeUndefined();
  });

  it('is not used when the message key is written with an escape (its member cannot be found as written)', () => {
    expect(members('{"mess\\u0061ge":"m","a":1}', true)).toBeUndefined();
  });

  it('is used when colons, braces, quotes, backslashes and the letter e sit inside strings', () => {
    const text = '{"a:b":"c:d,{[","e":"\\\\","q\\"":"\\"}","E":"tEe \\u001f\\n"}';
    expect(members(text)).toBe(text.slice(1, -1));
  });

  it(`is used up to ${MAX_TEXT_DEPTH} levels of nesting, not beyond`, () => {
    const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    expect(members(nested(MAX_TEXT_DEPTH))).toBe(nested(MAX_TEXT_DEPTH).slice(1, -1));
    expect(members(nested(MAX_TEXT_DEPTH + 1))).toBeUndefined();
    expect(members(`{"l":${'['.repeat(MAX_TEXT_DEPTH)}${']'.repeat(MAX_TEXT_DEPTH)}}`)).toBeUndefined();
  });

  it('gives up on an unterminated string instead of scanning forever', () => {
    expect(canonicalMembersText('{"a":"b}', 7, { a: 'b' }, false)).toBeUndefined();
  });

  it('ignores whitespace after the closing brace', () => {
    const text = '{"a":1}  \t';
    expect(canonicalMembersText(text, 6, { a: 1 }, false)?.text).toBe('"a":1');
  });
});

describe('appMemberList (the rewrite)', () => {
  const rewrite = (text: string): string =>
    `{${appMemberList(text)
      .members.map((m) => m.json)
      .join(',')}}`;

  it('writes what JSON.stringify writes, numbers as written', () => {
    expect(
      rewrite(
        '{ "n" : 1.0 ,\n "m": -0, "big": 12345678901234567890, "s": "caf\\u00e9 \\/", "l": [ 1 , 2.50 ] }',
      ),
    ).toBe('{"n":1.0,"m":-0,"big":12345678901234567890,"s":"café /","l":[1,2.50]}');
  });

  it('orders array-index keys first, ascending, at every depth, as JavaScript does', () => {
    expect(rewrite('{"b":1,"10":2,"a":{"z":0,"2":1,"1":2},"01":3,"1":4}')).toBe(
      '{"1":4,"10":2,"b":1,"a":{"1":2,"2":1,"z":0},"01":3}',
    );
    expect(JSON.stringify(JSON.parse('{"b":1,"10":2,"a":{"z":0,"2":1,"1":2},"01":3,"1":4}'))).toBe(
      '{"1":4,"10":2,"b":1,"a":{"1":2,"2":1,"z":0},"01":3}',
    );
  });

  it('keeps a twice-written key in its first place with its last value, as JSON.parse does', () => {
    expect(rewrite('{"a":1,"b":2,"a":3.0}')).toBe('{"a":3.0,"b":2}');
  });

  it('writes null for a number JSON.parse reads as Infinity, as JSON.stringify does', () => {
    expect(rewrite('{"n":1e400,"m":-1E999}')).toBe('{"n":null,"m":null}');
  });

  it('escapes a raw lone surrogate as JSON.stringify does', () => {
    expect(rewrite('{"s":"a\ud800b"}')).toBe('{"s":"a\\ud800b"}');
  });

  it('rewrites any depth JSON.parse reads up to MAX_NESTING, without recursion, and refuses deeper', () => {
    const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    expect(rewrite(nested(MAX_NESTING))).toBe(nested(MAX_NESTING));
    expect(() => appMemberList(nested(MAX_NESTING + 1))).toThrow(NestingTooDeepError);
  });

  it('keeps keys that are empty, __proto__ or look like literals', () => {
    expect(rewrite('{"":1,"__proto__":{"x":1},"true":null,"null":[]}')).toBe(
      '{"":1,"__proto__":{"x":1},"true":null,"null":[]}',
    );
  });
});
