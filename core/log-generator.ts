/**
 * A generator of realistic log events, shared by `kfek send` and the local runner (`npm start`).
 *
 * Pure: no I/O, no clock, no global randomness. The caller passes timestamps, and a seed makes the output
 * reproducible. Every message carries a run marker (`kfek_run=<id> kfek_seq=<n>`) in the text that ends up in
 * the document's `message` field, whatever the layout, so `kfek verify` can find each event in OpenSearch with
 * one phrase query.
 *
 * Layouts follow what the transform parses (core/transform/parsers): Powertools-style JSON app logs, Lambda
 * platform lines in the text log format (START / END / REPORT, with tab separators as Lambda writes them), and
 * Log4J pattern-layout lines.
 *
 * One file (over ~300 lines) because every layout shares the seeded random source and the run marker.
 */

export type GeneratedKind = 'app-json' | 'lambda-platform' | 'log4j';
export type GeneratedLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export interface GeneratedEvent {
  /** Epoch milliseconds (the CloudWatch event timestamp, later `@timestamp`). */
  readonly timestamp: number;
  readonly message: string;
  /** Position in the run, from 0. */
  readonly seq: number;
  readonly kind: GeneratedKind;
  /** Level for app lines; platform lines count as INFO. */
  readonly level: GeneratedLevel;
}

export interface GeneratorOptions {
  /** Embedded in every event; letters, digits, `-` and `_`, at most 64 characters. */
  readonly runId: string;
  /**
   * PRNG seed: the same seed, run id and timestamps give the same events.
   * @default 1
   */
  readonly seed?: number;
  /**
   * Share of app lines (JSON and Log4J) at ERROR level.
   * @default 0.1
   */
  readonly errorRatio?: number;
  /**
   * Relative weights of the layouts.
   * @default { 'app-json': 6, 'lambda-platform': 2.5, log4j: 1.5 }
   */
  readonly mix?: Readonly<Record<GeneratedKind, number>>;
  /**
   * First sequence number (to continue a run).
   * @default 0
   */
  readonly firstSeq?: number;
}

/** Base class of the generator's errors. */
export class GeneratorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GeneratorError';
  }
}

/** The options are unusable. */
export class InvalidGeneratorOptionError extends GeneratorError {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidGeneratorOptionError';
  }
}

const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MARKER = /kfek_run=([A-Za-z0-9_-]{1,64}) kfek_seq=(\d+)/;

/** The text embedded in every message. */
export function runMarker(runId: string, seq: number): string {
  return `kfek_run=${runId} kfek_seq=${seq}`;
}

/** Reads the run marker back from a message (or undefined when there is none). */
export function parseRunMarker(text: string): { readonly runId: string; readonly seq: number } | undefined {
  const m = MARKER.exec(text);
  return m === null ? undefined : { runId: m[1], seq: Number(m[2]) };
}

/** Throws {@link InvalidGeneratorOptionError} unless `runId` can be embedded and searched for. */
export function validateRunId(runId: string): void {
  if (!RUN_ID.test(runId)) {
    throw new InvalidGeneratorOptionError(
      `run id ${JSON.stringify(runId)} is invalid: use 1-64 letters, digits, "-" or "_".`,
    );
  }
}

/** A fresh run id: `run-<time base36>-<4 random base36>`; `random` is injectable for tests. */
export function newRunId(now: number, random: () => number = Math.random): string {
  const suffix = Math.floor(random() * 36 ** 4)
    .toString(36)
    .padStart(4, '0');
  return `run-${now.toString(36)}-${suffix}`;
}

/** mulberry32: a tiny seeded PRNG, fast and good enough for test data; the same seed gives the same events. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SERVICES = ['orders', 'payments', 'inventory', 'shipping'] as const;
const LOGGERS: Readonly<Record<(typeof SERVICES)[number], readonly string[]>> = {
  orders: ['com.example.orders.OrderService', 'com.example.orders.OrderController'],
  payments: ['com.example.payments.PaymentGateway', 'com.example.payments.RefundJob'],
  inventory: ['com.example.inventory.StockLevels', 'com.example.inventory.Reservations'],
  shipping: ['com.example.shipping.LabelPrinter', 'com.example.shipping.CarrierClient'],
};
const INFO_MESSAGES = [
  'Order %ID% accepted',
  'Payment authorized for order %ID%',
  'Reserved 3 items for order %ID%',
  'Label created for shipment %ID%',
  'Cache refreshed in 42 ms',
] as const;
const WARN_MESSAGES = [
  'Retrying carrier call for shipment %ID% (attempt 2 of 3)',
  'Slow query: 1830 ms',
] as const;
const ERROR_MESSAGES = [
  'Payment declined for order %ID%: card expired',
  'Timed out after 3000 ms calling inventory for order %ID%',
  'Could not print label for shipment %ID%: carrier returned HTTP 503',
] as const;
const DEBUG_MESSAGES = ['Request body parsed (512 bytes)', 'Feature flag checkout-v2 is on'] as const;
const ERROR_NAMES = ['PaymentDeclinedError', 'TimeoutError', 'CarrierUnavailableError'] as const;
const THREADS = ['main', 'http-nio-8080-exec-1', 'http-nio-8080-exec-7', 'scheduler-2'] as const;

/**
 * Produces events one at a time. Platform lines come in START / END / REPORT order per request, as Lambda
 * writes them, with a cold start (`Init Duration`) now and then.
 */
export class LogEventGenerator {
  private readonly random: () => number;
  private readonly errorRatio: number;
  private readonly weights: readonly (readonly [GeneratedKind, number])[];
  private readonly totalWeight: number;
  private seq: number;
  /** The request whose START was written and whose END / REPORT are due. */
  private pending:
    { readonly requestId: string; readonly step: 'END' | 'REPORT'; readonly cold: boolean } | undefined;

  constructor(private readonly options: GeneratorOptions) {
    validateRunId(options.runId);
    this.random = seededRandom(options.seed ?? 1);
    this.errorRatio = options.errorRatio ?? 0.1;
    if (!(this.errorRatio >= 0 && this.errorRatio <= 1)) {
      throw new InvalidGeneratorOptionError(
        `errorRatio is ${this.errorRatio}; expected a number from 0 to 1.`,
      );
    }
    const mix = options.mix ?? { 'app-json': 6, 'lambda-platform': 2.5, log4j: 1.5 };
    this.weights = (Object.entries(mix) as [GeneratedKind, number][]).filter(([, weight]) => weight > 0);
    this.totalWeight = this.weights.reduce((sum, [, weight]) => sum + weight, 0);
    if (!(this.totalWeight > 0) || !Number.isFinite(this.totalWeight)) {
      throw new InvalidGeneratorOptionError('mix must give at least one layout a positive finite weight.');
    }
    this.seq = options.firstSeq ?? 0;
  }

  /** The next event, stamped with `timestamp` (epoch milliseconds). */
  next(timestamp: number): GeneratedEvent {
    const seq = this.seq++;
    const marker = runMarker(this.options.runId, seq);
    if (this.pending !== undefined) return this.platformFollowUp(timestamp, seq, marker);
    const kind = this.pickKind();
    if (kind === 'lambda-platform') {
      const requestId = this.uuid();
      this.pending = { requestId, step: 'END', cold: this.random() < 0.1 };
      return {
        timestamp,
        seq,
        kind,
        level: 'INFO',
        message: `START RequestId: ${requestId} Version: $LATEST\t${marker}\n`,
      };
    }
    const level = this.pickLevel();
    const service = this.pick(SERVICES);
    const logger = this.pick(LOGGERS[service]);
    const text = `${this.messageFor(level)} ${marker}`;
    if (kind === 'log4j') {
      const time = new Date(timestamp).toISOString().replace('T', ' ').replace('Z', '').replace('.', ',');
      const stack =
        level === 'ERROR'
          ? `\n${this.pick(ERROR_NAMES)}: ${text}\n\tat ${logger}.handle(${logger.split('.').pop() ?? 'X'}.java:${this.int(20, 400)})`
          : '';
      return {
        timestamp,
        seq,
        kind,
        level,
        message: `${time} ${level.padEnd(5)} [${this.pick(THREADS)}] ${logger} - ${text}${stack}\n`,
      };
    }
    const body: Record<string, unknown> = {
      level,
      message: text,
      timestamp: new Date(timestamp).toISOString(),
      service,
      logger,
      cold_start: this.random() < 0.05,
      function_name: `${service}-api`,
      function_request_id: this.uuid(),
      xray_trace_id: `1-${Math.floor(timestamp / 1000).toString(16)}-${this.hex(24)}`,
      kfek_run: this.options.runId,
      kfek_seq: seq,
    };
    if (level === 'ERROR') {
      const name = this.pick(ERROR_NAMES);
      body.error = {
        name,
        message: text,
        location: `/var/task/index.js:${this.int(10, 900)}`,
        stack: `${name}: ${text}\n    at handler (/var/task/index.js:${this.int(10, 900)}:${this.int(1, 80)})`,
      };
    }
    return { timestamp, seq, kind, level, message: `${JSON.stringify(body)}\n` };
  }

  private platformFollowUp(timestamp: number, seq: number, marker: string): GeneratedEvent {
    const pending = this.pending!;
    if (pending.step === 'END') {
      this.pending = { ...pending, step: 'REPORT' };
      return {
        timestamp,
        seq,
        kind: 'lambda-platform',
        level: 'INFO',
        message: `END RequestId: ${pending.requestId}\t${marker}\n`,
      };
    }
    this.pending = undefined;
    const duration = 2 + this.random() * 300;
    const memory = this.pick([128, 256, 512, 1024] as const);
    const used = Math.min(memory, Math.round(memory * (0.3 + this.random() * 0.5)));
    const init = pending.cold ? `Init Duration: ${(150 + this.random() * 400).toFixed(2)} ms\t` : '';
    return {
      timestamp,
      seq,
      kind: 'lambda-platform',
      level: 'INFO',
      message:
        `REPORT RequestId: ${pending.requestId}\tDuration: ${duration.toFixed(2)} ms\t` +
        `Billed Duration: ${Math.ceil(duration)} ms\tMemory Size: ${memory} MB\tMax Memory Used: ${used} MB\t` +
        `${init}${marker}\n`,
    };
  }

  private pickKind(): GeneratedKind {
    let r = this.random() * this.totalWeight;
    for (const [kind, weight] of this.weights) {
      r -= weight;
      if (r < 0) return kind;
    }
    return this.weights[this.weights.length - 1][0];
  }

  private pickLevel(): GeneratedLevel {
    const r = this.random();
    if (r < this.errorRatio) return 'ERROR';
    // The rest: 10% WARN, 15% DEBUG, the remainder INFO.
    const rest = (r - this.errorRatio) / (1 - this.errorRatio || 1);
    if (rest < 0.1) return 'WARN';
    if (rest < 0.25) return 'DEBUG';
    return 'INFO';
  }

  private messageFor(level: GeneratedLevel): string {
    const templates =
      level === 'ERROR'
        ? ERROR_MESSAGES
        : level === 'WARN'
          ? WARN_MESSAGES
          : level === 'DEBUG'
            ? DEBUG_MESSAGES
            : INFO_MESSAGES;
    return this.pick(templates).replace('%ID%', String(this.int(100_000, 999_999)));
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  private hex(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += Math.floor(this.random() * 16).toString(16);
    return out;
  }

  private uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

/** `count` events, the i-th stamped `timestampOf(i)`. */
export function generateEvents(
  count: number,
  options: GeneratorOptions,
  timestampOf: (index: number) => number,
): GeneratedEvent[] {
  const generator = new LogEventGenerator(options);
  const events: GeneratedEvent[] = [];
  for (let i = 0; i < count; i++) events.push(generator.next(timestampOf(i)));
  return events;
}
