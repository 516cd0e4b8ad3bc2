/**
 * Where a command's AWS calls go: the one reader of `--endpoint`, `--region` and the SDK's environment variables
 * for every command (no SDK import here, so the parsers can use it and `kfek --help` stays fast). An empty variable
 * (`AWS_REGION=`) is an unset one everywhere: the SDK would take "" for a region and refuse it.
 */
type Env = Readonly<Record<string, string | undefined>>;

export interface AwsTarget {
  /**
   * Endpoint override, e.g. `http://127.0.0.1:5000` for moto.
   * @default - `AWS_ENDPOINT_URL` if set (the SDK reads it and the per-service ones), else AWS
   */
  readonly endpoint?: string;
  /** @default - the SDK's chain (the AWS profile's region) */
  readonly region?: string;
}

export interface AwsTargetOptions {
  /**
   * The SDK's per-service endpoint variable that also counts as an endpoint override (`CLOUDWATCH_LOGS` reads
   * `AWS_ENDPOINT_URL_CLOUDWATCH_LOGS`).
   * @default - only AWS_ENDPOINT_URL
   */
  readonly service?: string;
  /**
   * The region when neither `--region`, `AWS_REGION` nor `AWS_DEFAULT_REGION` sets one, given the endpoint override.
   * @default - us-east-1 with an endpoint override (any region works against a local emulator), else none
   */
  readonly defaultRegion?: (endpoint: string | undefined) => string | undefined;
}

/** An environment variable's (or an option's) value, or undefined when it is unset, empty or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * `--endpoint` or `AWS_ENDPOINT_URL`; `--region`, `AWS_REGION`, `AWS_DEFAULT_REGION`, or the default region
 * ({@link AwsTargetOptions.defaultRegion}).
 */
export function resolveAwsTarget(given: AwsTarget, env: Env, options: AwsTargetOptions = {}): AwsTarget {
  const fromEnv = (name: string): string | undefined => nonEmpty(env[name]);
  const endpoint =
    nonEmpty(given.endpoint) ??
    (options.service !== undefined ? fromEnv(`AWS_ENDPOINT_URL_${options.service}`) : undefined) ??
    fromEnv('AWS_ENDPOINT_URL');
  const region =
    nonEmpty(given.region) ??
    fromEnv('AWS_REGION') ??
    fromEnv('AWS_DEFAULT_REGION') ??
    (options.defaultRegion ?? ((e) => (e !== undefined ? 'us-east-1' : undefined)))(endpoint);
  return { ...(endpoint !== undefined ? { endpoint } : {}), ...(region !== undefined ? { region } : {}) };
}
