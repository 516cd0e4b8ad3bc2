/** What the command line parses into: one typed value per command. */
import type { OpenSearchSigningService } from '../../core/opensearch/target';

/** The commands `kfek` knows, in the order its help lists them. */
export const COMMAND_NAMES = [
  'send',
  'verify',
  'query',
  'proxy',
  'doctor',
  'reconcile',
  'events-window',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export interface CommonArgs {
  readonly endpoint?: string;
  readonly region?: string;
  /** Print machine-readable JSON on stdout instead of text. */
  readonly json: boolean;
}

export interface SendArgs extends CommonArgs {
  readonly command: 'send';
  readonly logGroupName: string;
  readonly logStreamName?: string;
  readonly count: number;
  readonly ratePerSecond?: number;
  readonly runId?: string;
  readonly seed?: number;
}

export interface VerifyArgs extends Omit<CommonArgs, 'endpoint'> {
  readonly command: 'verify';
  readonly runId: string;
  readonly openSearchUrl: string;
  readonly indexPattern: string;
  readonly expected?: number;
  readonly timeoutInMillis: number;
  readonly pollIntervalInMillis: number;
  readonly ingestField?: string;
  /** Sign requests with SigV4 (Amazon OpenSearch Service with IAM access). */
  readonly sigv4: boolean;
  /** `--service es|aoss` as given. @default - by the host name (core/opensearch/target.ts) */
  readonly service?: string;
}

export interface QueryArgs extends CommonArgs {
  readonly command: 'query';
  readonly name?: string;
  readonly list: boolean;
  readonly logGroupNames: readonly string[];
  /**
   * cdk.json profile whose `sources.logGroups` a built-in query runs on when no `--log-group` is given.
   * @default - cdk.json's default profile (`sandbox`), as `cdk deploy`
   */
  readonly profile?: string;
  readonly sinceInMillis: number;
  readonly timeoutInMillis: number;
}

export interface ProxyArgs {
  readonly command: 'proxy';
  /** The domain endpoint as given (a host name or an http(s) URL). */
  readonly endpoint: string;
  readonly region?: string;
  /** The SigV4 service: `aoss` for a Serverless collection. @default - the proxy's, `es` */
  readonly service?: OpenSearchSigningService;
  /** Port on 127.0.0.1. */
  readonly port: number;
  /**
   * Most request-body bytes buffered by all requests together (`--max-buffered-mib`).
   * @default - the proxy's default, 256 MiB
   */
  readonly maxBufferedBytes?: number;
  /**
   * Most requests with a body in flight at once (`--max-bodies`).
   * @default - the proxy's default, 8
   */
  readonly maxConcurrentBodies?: number;
  /**
   * Time a client has to send a request's headers (`--headers-timeout`).
   * @default - the proxy's default, 20 s
   */
  readonly headersTimeoutInMillis?: number;
  /**
   * Time a client has to send a whole request (`--request-timeout`).
   * @default - the proxy's default, 120 s
   */
  readonly requestTimeoutInMillis?: number;
  /**
   * Time the domain may stay silent before a 504 (`--upstream-timeout`).
   * @default - the proxy's default, 300 s
   */
  readonly upstreamTimeoutInMillis?: number;
}

export interface DoctorArgs {
  readonly command: 'doctor';
  /** The cdk.json profile to check. */
  readonly profile: string;
  readonly region?: string;
  readonly json: boolean;
  /** Do not run `cdk synth`: only the checks that need no templates run. */
  readonly skipSynth: boolean;
  /** Read this already synthesized assembly instead of running `cdk synth`. */
  readonly cdkOut?: string;
  readonly synthTimeoutInMillis: number;
}

export interface ReconcileArgs {
  readonly command: 'reconcile';
  /** @default - the profile's `sources.logGroups` */
  readonly logGroups: readonly string[];
  /** @default - cdk.json's default profile (`sandbox`) */
  readonly profile?: string;
  readonly since: Date;
  /** @default - now */
  readonly until?: Date;
  /** @default - the profile's `reconcile.lagMinutes` */
  readonly lagInMillis?: number;
  readonly heal: boolean;
  readonly healTimeoutInMillis: number;
  /** @default - `insights`, or `scan` with an endpoint override */
  readonly countMode?: 'insights' | 'scan';
  readonly openSearchUrl: string;
  readonly sigv4: boolean;
  /** `--service es|aoss` as given. @default - the profile's kind (core/opensearch/target.ts) */
  readonly service?: string;
  /** @default - `<name>-<profile>-raw` */
  readonly rawStream?: string;
  /** @default - the profile's Search stack's failed-records bucket (none with --local-dir) */
  readonly bucket?: string;
  readonly localDir?: string;
  readonly joinLookbackInMillis: number;
  readonly endpoint?: string;
  readonly region?: string;
  readonly json: boolean;
}

export interface EventsWindowArgs {
  readonly command: 'events-window';
  readonly since: Date;
  /** @default - the command's start, by Kinesis' clock */
  readonly until?: Date;
  /** @default - `<name>-<profile>-events` of `profile` */
  readonly eventsStream?: string;
  readonly profile?: string;
  /** @default - every record of the window */
  readonly limit?: number;
  /** Records per second. @default - as fast as Kinesis takes them */
  readonly ratePerSecond?: number;
  readonly dryRun: boolean;
  readonly endpoint?: string;
  readonly region?: string;
  readonly json: boolean;
}

export interface HelpArgs {
  readonly command: 'help';
  /**
   * The command whose options to print (`kfek send --help`, `kfek help send`).
   * @default - the overview of all commands
   */
  readonly topic?: CommandName;
}

/** `kfek --version`. */
export interface VersionArgs {
  readonly command: 'version';
}

export type CliArgs =
  | SendArgs
  | VerifyArgs
  | QueryArgs
  | ProxyArgs
  | DoctorArgs
  | ReconcileArgs
  | EventsWindowArgs
  | HelpArgs
  | VersionArgs;
