/**
 * The worst lines we could construct for a route's processing (issue 29): one per way a line can make a detector, a
 * pattern, the JSON scan or the join work hard, each beside an ordinary line of the same length, through a route that
 * masks with every detector, runs catastrophic-looking custom, drop and multi-line patterns, and joins. The cost of a
 * line is its median time on either transport (the Kinesis handler's core; the Pipes batch, which also parses every
 * item); a hostile line's figure is its time over the ordinary line's. Target: at most 10x.
 */
import { processPipesBatch, type PipesKinesisRecord } from '../../lambda/transform/pipes-batch';
import { RouteTable } from '../../core/transform/routing';
import { toErrorDocument, transformRecord } from '../../core/transform/transform';
import { MASK_DETECTORS } from '../../core/contracts/routes';
import { encode } from './transform-corpus';
import { median } from './stats';

/** Catastrophic on a backtracking engine: one 30-character line of `a` took seconds with JavaScript's RegExp. */
export const HOSTILE_PATTERNS = {
  drop: '(a+)+$',
  mask: '(\\w+\\s?)+$',
  multiline: '^(a|aa)+$',
};

export function hostileRoutes(): RouteTable {
  return new RouteTable([
    {
      name: 'hostile',
      match: { logGroupPattern: '*' },
      staticFields: { team: 'bench' },
      processing: {
        mask: { detectors: [...MASK_DETECTORS], custom: [{ name: 'words', pattern: HOSTILE_PATTERNS.mask }] },
        drop: [{ name: 'as', messagePattern: HOSTILE_PATTERNS.drop }],
        multiline: { mode: 'pattern', pattern: HOSTILE_PATTERNS.multiline },
      },
    },
  ]);
}

function repeatTo(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** Hostile lines of about `length` characters, by what they attack. */
export function hostileLines(length: number): ReadonlyArray<readonly [string, string]> {
  const jsonOf = (inner: string): string => `{"m":"${inner}"}`;
  return [
    ['a run of one letter (the custom and drop patterns)', repeatTo('a', length) + '!'],
    ['words and spaces, no end (the custom mask)', repeatTo('ab ', length) + '!'],
    ['digits with single spaces (card numbers)', repeatTo('1 ', length)],
    ['digits with dashes, 12 at a time (card numbers)', repeatTo('123456789012-', length)],
    ['colons and hex (IPv6)', repeatTo('a:', length)],
    ['colons only (IPv6)', repeatTo(':', length)],
    ['dotted digits (IPv4)', repeatTo('1.', length)],
    ['at signs and labels (e-mail)', repeatTo('a@b.', length)],
    ['one long base64 run (secret keys)', repeatTo('Ab1/', length)],
    ['upper case and digits (access key ids)', repeatTo('AKIA1', length)],
    ['eyJ runs without dots (JWTs)', repeatTo('eyJhbGci', length)],
    ['URL-encoded separators', repeatTo('%20a', length)],
    ['JSON: one string of escapes', jsonOf(repeatTo('\\u0040', length - 8))],
    ['JSON: many short strings', `{"a":[${repeatTo('"x",', length - 8)}"y"]}`],
    ['JSON: deep nesting', repeatTo('{"a":', length / 2) + '1' + '}'.repeat(Math.ceil(length / 2 / 5))],
    ['JSON: named secret keys', `{${repeatTo('"SecretAccessKey":"x",', length - 4)}"z":1}`],
    ['JSON: backslashes before quotes', jsonOf(repeatTo('\\\\\\"', length - 8))],
  ];
}

/** An ordinary line of `length` characters: a realistic app line repeated. */
export function ordinaryLine(length: number): string {
  return repeatTo(
    'INFO order 4812 accepted for customer 901 in 12 ms (cache hit, region eu-west-1) ',
    length,
  );
}

/** One record of `count` copies of `line` in one envelope (what a busy app's batch looks like). */
function recordOf(line: string, count: number): string {
  const logEvents = Array.from({ length: count }, (_, i) => ({
    id: String(1_000_000 + i),
    timestamp: 1_763_888_400_000 + i,
    message: line,
  }));
  return encode({
    messageType: 'DATA_MESSAGE',
    owner: '123456789012',
    logGroup: '/bench/hostile',
    logStream: 'stream',
    subscriptionFilters: [],
    logEvents,
  });
}

type Side = (data: string) => Promise<void>;

function sides(routes: RouteTable): Record<'kinesis' | 'pipes', Side> {
  return {
    kinesis: (data) => {
      const outcome = transformRecord(data, { routes });
      if (outcome.kind !== 'data') throw new Error(`hostile bench record was ${outcome.kind}`);
      return Promise.resolve();
    },
    pipes: async (data) => {
      const record = { data, sequenceNumber: '1', partitionKey: 'k' } as unknown as PipesKinesisRecord;
      await processPipesBatch([record], {
        transform: (d, o) => transformRecord(d, { ...o, routes }),
        errorDocument: toErrorDocument,
        writer: { write: () => Promise.reject(new Error('the bench answer always fits')) },
        deadLetters: { put: () => Promise.reject(new Error('no poison in the bench')) },
        deadLetterBucket: 'bench',
        logger: { warn: () => {}, error: () => {} },
        remainingMs: () => 60_000,
      });
    },
  };
}

async function timeOf(side: Side, data: string, rounds: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    await side(data);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
}

/** Per transport and line length: every hostile line's time over the ordinary line's; the worst is the figure. */
export async function measureHostileLines(
  lengths: readonly number[],
  log: (line: string) => void,
): Promise<number> {
  const routes = hostileRoutes();
  let worst = 0;
  for (const [transport, side] of Object.entries(sides(routes))) {
    for (const length of lengths) {
      // Enough events per record to measure, few enough to stay well within a record's limits.
      const count = Math.max(1, Math.floor(200_000 / length));
      const rounds = 7;
      const ordinary = recordOf(ordinaryLine(length), count);
      await timeOf(side, ordinary, 2);
      const base = await timeOf(side, ordinary, rounds);
      const rows: string[] = [];
      let worstHere = 0;
      let worstName = '';
      for (const [name, line] of hostileLines(length)) {
        const data = recordOf(line, count);
        await timeOf(side, data, 1);
        const ratio = (await timeOf(side, data, rounds)) / base;
        rows.push(`  ${name}: ${ratio.toFixed(2)}x`);
        if (ratio > worstHere) {
          worstHere = ratio;
          worstName = name;
        }
      }
      worst = Math.max(worst, worstHere);
      log(
        `${transport}, lines of ${length} characters (${count} per record): worst ${worstHere.toFixed(2)}x (${worstName})`,
      );
      for (const row of rows) log(row);
    }
  }
  return worst;
}
