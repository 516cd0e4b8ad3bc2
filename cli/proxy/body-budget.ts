/**
 * Request bodies are buffered whole, because the SigV4 payload hash needs every byte before the first one can be
 * sent. Each body is capped (`maxBodyBytes`), and this module also caps what all requests buffer together and how
 * many requests with bodies are in flight: without that, three 95 MiB `_bulk` bodies at once held 694 MiB.
 *
 * A request over either limit gets a 503 with `Retry-After` at once rather than a place in a queue: a queue would
 * hold the client's connection (and, for a declared length, its unread body in the socket buffers) for an unknown
 * time, while a 503 is an answer every OpenSearch client already retries.
 */
import type * as http from 'node:http';
import { sendText } from './http-messages';

export interface BodyBudgetLimits {
  /** Largest single body; larger ones get a 413. */
  readonly maxBodyBytes: number;
  /** Most body bytes buffered by all requests together; a request that would pass it gets a 503. */
  readonly maxBufferedBytes: number;
  /** Most requests with a body in flight (buffering, or waiting for the domain) at once; more get a 503. */
  readonly maxConcurrentBodies: number;
  /**
   * Called with the new total every time the buffered bytes change (tests measure the cap with it).
   * @default - nothing is called
   */
  readonly onBufferedBytes?: (bytes: number) => void;
}

/** A body read within the budget; `release` gives its bytes and its slot back (safe to call more than once). */
export interface AdmittedBody {
  readonly body: Buffer;
  release(): void;
}

const NO_BODY: AdmittedBody = { body: Buffer.alloc(0), release: () => undefined };

/** The shared counters of one proxy. */
export class BodyBudget {
  private bufferedBytes = 0;
  private bodiesInFlight = 0;

  constructor(readonly limits: BodyBudgetLimits) {}

  /**
   * Reads a request's body, or answers 413/503 and resolves undefined. A request without a body (no
   * content-length, or 0, and no transfer-encoding) takes no slot.
   */
  async read(req: http.IncomingMessage, res: http.ServerResponse): Promise<AdmittedBody | undefined> {
    const declaredText = req.headers['content-length'];
    const declared = declaredText === undefined ? undefined : Number(declaredText);
    const chunked = req.headers['transfer-encoding'] !== undefined;
    if (!chunked && (declared === undefined || declared === 0)) return NO_BODY;
    const { maxBodyBytes, maxConcurrentBodies } = this.limits;
    if (declared !== undefined && declared > maxBodyBytes) {
      refuse(req, res, 413, tooLargeMessage(maxBodyBytes));
      return undefined;
    }
    if (this.bodiesInFlight >= maxConcurrentBodies) {
      refuse(
        req,
        res,
        503,
        `kfek proxy: ${this.bodiesInFlight} requests with bodies are in flight, at most ${maxConcurrentBodies} at a ` +
          'time (--max-bodies); retry in a moment.',
      );
      return undefined;
    }
    const share = this.open(req, res);
    // A declared length is reserved before a byte is read, and read into one buffer of that size (no second copy).
    if (declared !== undefined && !chunked && !share.reserve(declared)) return undefined;
    const whole = declared !== undefined && !chunked ? Buffer.allocUnsafe(declared) : undefined;
    return collect(req, res, share, { maxBodyBytes, whole });
  }

  /** Takes a slot for one body; its share reserves bytes as they come and gives everything back on release. */
  private open(req: http.IncomingMessage, res: http.ServerResponse): Share {
    this.bodiesInFlight += 1;
    let reserved = 0;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.bodiesInFlight -= 1;
      this.add(-reserved);
      reserved = 0;
    };
    /** Takes `bytes` more from the budget, or gives everything back and answers 503. */
    const reserve = (bytes: number): boolean => {
      const { maxBufferedBytes } = this.limits;
      if (this.bufferedBytes + bytes > maxBufferedBytes) {
        const buffered = this.bufferedBytes;
        release();
        refuse(
          req,
          res,
          503,
          `kfek proxy: the proxy already buffers ${buffered} bytes of request bodies to sign them, at most ` +
            `${maxBufferedBytes} bytes in total (--max-buffered-mib); retry in a moment or send smaller batches.`,
        );
        return false;
      }
      reserved += bytes;
      this.add(bytes);
      return true;
    };
    return { reserve, release };
  }

  private add(bytes: number): void {
    if (bytes === 0) return;
    this.bufferedBytes += bytes;
    this.limits.onBufferedBytes?.(this.bufferedBytes);
  }
}

/** One body's slot and bytes in the budget. */
interface Share {
  /** Takes `bytes` more, or releases the share, answers 503 and returns false. */
  readonly reserve: (bytes: number) => boolean;
  readonly release: () => void;
}

/**
 * Reads the body into `whole` (a declared length) or into chunks reserved as they come; answers 413 when it passes
 * `maxBodyBytes` or its declared length, and resolves undefined when it was refused or the client went away.
 */
function collect(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  share: Share,
  { maxBodyBytes, whole }: { readonly maxBodyBytes: number; readonly whole: Buffer | undefined },
): Promise<AdmittedBody | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const stop = (answer: AdmittedBody | undefined): void => {
      done = true;
      req.removeAllListeners('data');
      resolve(answer);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      if (size + chunk.length > maxBodyBytes || (whole !== undefined && size + chunk.length > whole.length)) {
        share.release();
        refuse(req, res, 413, tooLargeMessage(maxBodyBytes));
        stop(undefined);
        return;
      }
      if (whole === undefined) {
        if (!share.reserve(chunk.length)) {
          stop(undefined);
          return;
        }
        chunks.push(chunk);
      } else {
        chunk.copy(whole, size);
      }
      size += chunk.length;
    });
    req.on('end', () => {
      if (done) return;
      const body = whole === undefined ? Buffer.concat(chunks, size) : whole.subarray(0, size);
      stop({ body, release: share.release });
    });
    // The client went away before the body was complete: nothing to answer, give the budget back.
    req.on('close', () => {
      if (done || req.complete) return;
      share.release();
      stop(undefined);
    });
  });
}

function tooLargeMessage(maxBodyBytes: number): string {
  return (
    `kfek proxy: the request body is larger than ${maxBodyBytes} bytes, the most this proxy buffers to sign it; ` +
    'send smaller batches.'
  );
}

/** Answers and closes the connection; the rest of the body is read and dropped, never buffered. */
function refuse(req: http.IncomingMessage, res: http.ServerResponse, status: 413 | 503, text: string): void {
  req.removeAllListeners('data');
  req.resume();
  sendText(res, status, text, true, status === 503 ? { 'retry-after': '1' } : {});
}
