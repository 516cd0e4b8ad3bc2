/** The IPC messages between {@link ChildProcessHandler} and scripts/local/handler-child.ts. */
import type { Context } from 'aws-lambda';

/** A Context's data (functions do not cross IPC; the child rebuilds them). */
export type ContextData = Omit<Context, 'getRemainingTimeInMillis' | 'done' | 'fail' | 'succeed'>;

export interface ChildRequest {
  readonly id: number;
  readonly event: unknown;
  readonly context: ContextData;
  /** Epoch millis at which the invocation times out (`getRemainingTimeInMillis` counts down to it). */
  readonly deadline: number;
}

export type ChildReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'load-error'; readonly message: string }
  | { readonly kind: 'started'; readonly id: number }
  | { readonly kind: 'result'; readonly id: number; readonly response: unknown }
  | { readonly kind: 'error'; readonly id: number; readonly message: string };
