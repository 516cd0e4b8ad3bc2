/**
 * The app's JSON text reused as the document's app members (lambda/transform/app-json.ts): what is copied, what is
 * cut, and every case where the text must not be used because it would not mean exactly the parsed object.
 */
import { appMembersText, keyCount, MAX_TEXT_DEPTH } from '../../../lambda/transform/app-json';

function members(text: string, dropMessage = false): string | undefined {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return appMembersText(text, text.lastIndexOf('}'), parsed, dropMessage);
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

describe('appMembersText', () => {
  it('copies the members as written, numbers, escapes and whitespace included', () => {
    const text =
      '{"n":1.0, "m":-0,\n "big":12345678901234567890,"s":"caf\\u00e9 \\/ x:y,}","t":true,"f":false,"z":null}';
    expect(members(text)).toBe(text.slice(1, -1));
  });

  it('keeps integer-like keys where they are written (a JavaScript object would put them first)', () => {
    expect(members('{"b":1,"2":2}')).toBe('"b":1,"2":2');
  });

  it('gives no members for an empty object', () => {
    expect(members('{}')).toBe('');
    expect(members('{ \n }')).toBe('');
  });

  it.each([
    ['first', '{"message":"m","a":1,"b":2}', '"a":1,"b":2'],
    ['in the middle', '{"a":1,"message":"m","b":2}', '"a":1,"b":2'],
    ['last', '{"a":1,"b":2,"message":"m"}', '"a":1,"b":2'],
    ['alone', '{"message":"m"}', ''],
    ['with whitespace', '{ "a" : 1 ,\n  "message" : "m, \\"x\\"" ,  "b" : 2 }', ' "a" : 1 ,\n    "b" : 2 '],
    ['last, with whitespace', '{ "a" : 1 , "message" : "m" }', ' "a" : 1 '],
  ])('leaves out the top-level message member (%s)', (_, text, expected) => {
    expect(members(text, true)).toBe(expected);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    delete parsed.message;
    expect(JSON.parse(`{${expected}}`)).toEqual(parsed);
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
    ['an exponent', '{"n":1e400}'],
    ['an upper-case exponent', '{"n":1E2}'],
    ['a negative exponent in an array', '{"l":[1,-1.5e-3]}'],
    ['a lone surrogate written raw', '{"s":"\ud800"}'],
  ])('is not used with %s', (_, text) => {
    expect(members(text)).toBeUndefined();
  });

  it('is not used when the message key is written with an escape (its member cannot be found as written)', () => {
    expect(members('{"mess\\u0061ge":"m","a":1}', true)).toBeUndefined();
    expect(members('{"mess\\u0061ge":"m","a":1}', false)).toBe('"mess\\u0061ge":"m","a":1');
  });

  it('is used when colons, braces, quotes, backslashes and the letter e sit inside strings', () => {
    const text = '{"a:b":"c:d,{[","e":"\\\\","q\\"":"\\"}","E":"tEe"}';
    expect(members(text)).toBe(text.slice(1, -1));
  });

  it('is used with an escaped lone surrogate (the text is well-formed and means the same string)', () => {
    expect(members('{"s":"\\ud800"}')).toBe('"s":"\\ud800"');
  });

  it(`is used up to ${MAX_TEXT_DEPTH} levels of nesting, not beyond`, () => {
    const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    expect(members(nested(MAX_TEXT_DEPTH))).toBe(nested(MAX_TEXT_DEPTH).slice(1, -1));
    expect(members(nested(MAX_TEXT_DEPTH + 1))).toBeUndefined();
    expect(members(`{"l":${'['.repeat(MAX_TEXT_DEPTH)}${']'.repeat(MAX_TEXT_DEPTH)}}`)).toBeUndefined();
  });

  it('gives up on an unterminated string instead of scanning forever', () => {
    expect(appMembersText('{"a":"b}', 7, { a: 'b' }, false)).toBeUndefined();
  });

  it('ignores whitespace after the closing brace', () => {
    const text = '{"a":1}  \t';
    expect(appMembersText(text, 6, { a: 1 }, false)).toBe('"a":1');
  });
});
