/**
 * SigV4 signing (core/aws-signing.ts) against an independent computation (test/helpers/sigv4-reference.ts), which
 * is itself anchored on AWS's published test vectors. Every case signs a request, then checks that the
 * Authorization header is what AWS would compute for the target and headers that are actually sent.
 */
import { canonicalTarget, signRequest } from '../../core/aws-signing';
import { referenceAuthorization, referenceCanonicalUri, signedHeadersOf } from '../helpers/sigv4-reference';

const EXAMPLE = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const SIGNING_DATE = new Date('2015-08-30T12:36:00Z');

describe('the reference computation', () => {
  // AWS's SigV4 test suite (get-vanilla and get-vanilla-query-order-key-case): service "service", us-east-1.
  const scope = { ...EXAMPLE, service: 'service', region: 'us-east-1' };
  const headers = { Host: 'example.amazonaws.com', 'X-Amz-Date': '20150830T123600Z' };

  test('reproduces AWS test vector get-vanilla', () => {
    expect(
      referenceAuthorization({ method: 'GET', target: '/', headers }, scope, ['host', 'x-amz-date']),
    ).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ' +
        'SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });

  test('reproduces AWS test vector get-vanilla-query-order-key-case', () => {
    const target = '/?Param2=value2&Param1=value1';
    expect(referenceAuthorization({ method: 'GET', target, headers }, scope, ['host', 'x-amz-date'])).toMatch(
      /Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500$/,
    );
  });
});

describe('signRequest', () => {
  const origin = new URL('https://search-kfek-abc.eu-west-1.es.amazonaws.com');
  const scope = { service: 'es', region: 'eu-west-1', credentials: EXAMPLE };

  async function signedAndExpected(
    method: string,
    target: string,
    body?: string,
  ): Promise<{ sent: string; authorization: string; expected: string }> {
    const signed = await signRequest(scope, {
      method,
      origin,
      target,
      ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
      signingDate: SIGNING_DATE,
    });
    const authorization = signed.headers.authorization;
    const expected = referenceAuthorization(
      { method, target: signed.target, headers: signed.headers, ...(body === undefined ? {} : { body }) },
      { ...EXAMPLE, service: 'es', region: 'eu-west-1' },
      signedHeadersOf(authorization),
    );
    return { sent: signed.target, authorization, expected };
  }

  test.each([
    // [what the caller wrote, what is sent]
    ['/my index/_search', '/my%20index/_search'],
    ['/my%20index/_search', '/my%20index/_search'],
    ['/100%25/_doc/1', '/100%25/_doc/1'],
    ['/100%/_doc/1', '/100%25/_doc/1'],
    ['/logs-*/_search', '/logs-%2A/_search'],
    ['/logs-2026.11.23/_doc/a:b', '/logs-2026.11.23/_doc/a%3Ab'],
    ['/caf\u00e9/_doc/\u{1F600}', '/caf%C3%A9/_doc/%F0%9F%98%80'],
    ['/caf%C3%A9', '/caf%C3%A9'],
    ["/it's(1)!", '/it%27s%281%29%21'],
    ['/a/./b/../c/', '/a/c/'],
    ['', '/'],
  ])('path %j is sent as %j and signed as AWS expects', async (target, sent) => {
    const result = await signedAndExpected('GET', target);
    expect(result.sent).toBe(sent);
    expect(result.authorization).toBe(result.expected);
  });

  test('the path is URI-encoded twice in the canonical request (SigV4 for every service but S3)', async () => {
    const { sent } = await signedAndExpected('GET', '/my%20index');
    expect(referenceCanonicalUri(sent)).toBe('/my%2520index');
  });

  test.each([
    ['/_search?q=level:ERROR', '/_search?q=level%3AERROR'],
    ['/_search?q=a b', '/_search?q=a%20b'],
    ['/_search?q=a+b', '/_search?q=a%20b'],
    ['/_search?q=a%2Bb', '/_search?q=a%2Bb'],
    ['/_search?x=2&x=1&y=', '/_search?x=2&x=1&y='],
    ['/_search?flag', '/_search?flag='],
    ['/_search?b=2&a=1&A=0', '/_search?b=2&a=1&A=0'],
    ['/_search?q=*&sort=@timestamp:desc', '/_search?q=%2A&sort=%40timestamp%3Adesc'],
    ['/_search?q=caf\u00e9', '/_search?q=caf%C3%A9'],
  ])('query %j is sent as %j and signed as AWS expects', async (target, sent) => {
    const result = await signedAndExpected('GET', target);
    expect(result.sent).toBe(sent);
    expect(result.authorization).toBe(result.expected);
  });

  test('a body is covered by the signature', async () => {
    const result = await signedAndExpected('POST', '/logs-*/_search', '{"query":{"match_all":{}}}');
    expect(result.authorization).toBe(result.expected);
  });

  test('a session token is sent and signed', async () => {
    const signed = await signRequest(
      { ...scope, credentials: { ...EXAMPLE, sessionToken: 'token/with+chars=' } },
      { method: 'GET', origin, target: '/', signingDate: SIGNING_DATE },
    );
    expect(signed.headers['x-amz-security-token']).toBe('token/with+chars=');
    expect(signedHeadersOf(signed.headers.authorization)).toContain('x-amz-security-token');
  });
});

describe('canonicalTarget', () => {
  test('decodes the query into repeated keys and re-encodes it strictly', () => {
    expect(canonicalTarget('/a%20b/_search?x=1&x=2&y=%2A')).toEqual({
      path: '/a%20b/_search',
      query: { x: ['1', '2'], y: '*' },
      search: '?x=1&x=2&y=%2A',
    });
    expect(canonicalTarget('')).toEqual({ path: '/', query: {}, search: '' });
  });
});
