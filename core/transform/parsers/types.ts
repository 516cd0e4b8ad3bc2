/** What the message parsers produce for one log event. Pure data, no behaviour. */

/**
 * Fields kfek derives from Lambda platform lines and runtime prefixes, under `lambda` in the
 * document. Durations are milliseconds and sizes megabytes, as numbers.
 */
export interface LambdaFields {
  /** The invocation's request id (platform lines and runtime prefixes). */
  requestId?: string;
  /**
   * The platform event, named as in Lambda's JSON log format for both formats so dashboards need
   * one filter: `platform.start`, `platform.end`, `platform.report`, `platform.initStart`,
   * `platform.initReport`, `platform.restoreReport`, `platform.runtimeDone`, ...
   */
  type?: string;
  /** Function version from START lines (`$LATEST`, `56`). */
  version?: string;
  durationMs?: number;
  billedDurationMs?: number;
  memorySizeMb?: number;
  maxMemoryUsedMb?: number;
  initDurationMs?: number;
  restoreDurationMs?: number;
  billedRestoreDurationMs?: number;
  /** `success`, `timeout`, `error`, `failure`... where Lambda reports it. */
  status?: string;
  errorType?: string;
  /** From the `XRAY TraceId:` line that follows REPORT when tracing is active. */
  xrayTraceId?: string;
  runtimeVersion?: string;
  runtimeVersionArn?: string;
}

/** Fields derived from a recognised layout. They sit at the top level of the document. */
export interface DerivedFields {
  level?: string;
  thread?: string;
  logger?: string;
  lambda?: LambdaFields;
}

export interface ParsedMessage {
  /** The document's `message`: always a string. */
  readonly message: string;
  /** Fields kfek derived from a recognised layout, if any. */
  readonly derived?: DerivedFields;
  /**
   * The fields of a message that is a JSON object (top level in the document). When present,
   * `message` is its string `message` field, or the original text if it has none.
   */
  readonly appFields?: Record<string, unknown>;
  /** True when `appFields.message` was a string and became the document's `message`. */
  readonly messageFromApp?: boolean;
  /** The JSON text `appFields` was parsed from (present with `appFields`). */
  readonly appText?: string;
  /** Index of the `}` that closes `appText` (only whitespace follows it). */
  readonly appTextClose?: number;
}
