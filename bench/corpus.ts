/**
 * A deterministic, realistic corpus of CloudWatch Logs events for the transform benchmark: the
 * mix of line layouts a Lambda-heavy account produces (JSON app logs, platform lines in both log
 * formats, Node/Python runtime prefixes, Log4J, plain text, multi-line stack traces).
 */

import { seededRandom } from '../core/log-generator';

export interface CorpusEvent {
  readonly id: string;
  readonly timestamp: number;
  readonly message: string;
}

const LEVELS = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'] as const;
const WORDS = [
  'order',
  'payment',
  'customer',
  'accepted',
  'retrying',
  'cache',
  'miss',
  'latency',
  'upstream',
  'timeout',
  'created',
  'updated',
  'queue',
  'batch',
  'processed',
] as const;

export class CorpusGenerator {
  private readonly random: () => number;
  private nextId = 39494971786919662926967737244165955921131981322179969024n;
  private time = Date.UTC(2026, 10, 23, 8, 0, 0);

  public constructor(seed = 42) {
    this.random = seededRandom(seed);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  private hex(length: number): string {
    let s = '';
    while (s.length < length)
      s += Math.floor(this.random() * 0x100000000)
        .toString(16)
        .padStart(8, '0');
    return s.slice(0, length);
  }

  private uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
  }

  private sentence(): string {
    const n = 3 + Math.floor(this.random() * 10);
    const words: string[] = [];
    for (let i = 0; i < n; i++) words.push(this.pick(WORDS));
    return `${words.join(' ')} id=${Math.floor(this.random() * 1e6)}`;
  }

  private iso(): string {
    return new Date(this.time).toISOString();
  }

  /** One message, drawn from the layout mix below (weights in percent). */
  public message(): string {
    const r = this.random() * 100;
    const requestId = this.uuid();
    if (r < 35) {
      // Powertools-style JSON app log.
      return `${JSON.stringify({
        level: this.pick(LEVELS),
        message: this.sentence(),
        service: 'checkout',
        timestamp: this.iso(),
        cold_start: this.random() < 0.05,
        function_request_id: requestId,
        xray_trace_id: `1-${this.hex(8)}-${this.hex(24)}`,
        order: {
          id: this.hex(12),
          amount: Math.round(this.random() * 100000) / 100,
          items: 1 + Math.floor(this.random() * 9),
        },
      })}\n`;
    }
    if (r < 45) {
      return `REPORT RequestId: ${requestId}\tDuration: ${(this.random() * 2000).toFixed(2)} ms\tBilled Duration: ${Math.ceil(this.random() * 2000)} ms\tMemory Size: 512 MB\tMax Memory Used: ${60 + Math.floor(this.random() * 200)} MB\t\n`;
    }
    if (r < 52) return `START RequestId: ${requestId} Version: $LATEST\n`;
    if (r < 59) return `END RequestId: ${requestId}\n`;
    if (r < 64) {
      return JSON.stringify({
        time: this.iso(),
        type: 'platform.report',
        record: {
          requestId,
          metrics: {
            durationMs: Math.round(this.random() * 200000) / 100,
            billedDurationMs: Math.ceil(this.random() * 2000),
            memorySizeMB: 512,
            maxMemoryUsedMB: 60 + Math.floor(this.random() * 200),
          },
          status: 'success',
        },
      });
    }
    if (r < 76) return `${this.iso()}\t${requestId}\t${this.pick(LEVELS)}\t${this.sentence()}\n`;
    if (r < 84) return `[${this.pick(LEVELS)}]\t${this.iso()}\t${requestId}\t${this.sentence()}\n`;
    if (r < 92) {
      const d = new Date(this.time).toISOString();
      return `${d.slice(0, 10)} ${d.slice(11, 19)},${d.slice(20, 23)} ${this.pick(LEVELS)} [pool-1-thread-${1 + Math.floor(this.random() * 8)}] com.example.checkout.OrderService - ${this.sentence()}\n`;
    }
    if (r < 95) {
      return `${this.iso()}\t${requestId}\tERROR\tInvoke Error \t{"errorType":"TypeError","errorMessage":"Cannot read properties of undefined (reading 'id')","stack":["TypeError: Cannot read properties of undefined (reading 'id')","    at Runtime.handler (/var/task/index.js:12:25)","    at Runtime.handleOnceNonStreaming (file:///var/runtime/index.mjs:1173:29)"]}\n`;
    }
    return `${this.sentence()}\n`;
  }

  /** `n` events with realistic 56-digit ids and slowly advancing timestamps. */
  public events(n: number): CorpusEvent[] {
    const events: CorpusEvent[] = [];
    for (let i = 0; i < n; i++) {
      this.time += Math.floor(this.random() * 5);
      events.push({ id: (this.nextId++).toString(), timestamp: this.time, message: this.message() });
    }
    return events;
  }

  /** A DATA_MESSAGE envelope as CloudWatch Logs writes it. */
  public envelope(n: number, group = Math.floor(this.random() * 20)): object {
    return {
      messageType: 'DATA_MESSAGE',
      owner: '123456789012',
      logGroup: `/aws/lambda/checkout-${group}`,
      logStream: `2026/11/23/[$LATEST]${this.hex(32)}`,
      subscriptionFilters: ['kfek'],
      logEvents: this.events(n),
    };
  }

  /** Integer in [min, max]. */
  public between(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }
}
