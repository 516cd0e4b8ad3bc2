/**
 * What one run of a command works with, made once by the command table's runner (cli/main.ts) from the process
 * (cli/io.ts) and the command's parsed options: the clock, the working folder, where AWS calls go, the cdk.json
 * profile, the AWS clients (each made on first use, all closed when the command ends), the deployed Search stack's
 * resources, an OpenSearch client and `npm start`'s folder. A command takes what it needs from here instead of
 * building it again, so each of these is decided in one place, in the same words for every command.
 */
import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import { translateAwsError } from '../core/aws/retry';
import { type Clock, sleep } from '../core/clock';
import type { PipelineConfig } from '../core/config';
import { physicalNamesFor, type PhysicalNames } from '../core/contracts/physical-names';
import { createHttpClient, type HttpAuth, type OpenSearchHttpClient } from '../core/opensearch/http';
import type { OpenSearchSigningService, OpenSearchTarget } from '../core/opensearch/target';
import { forCommand, openSearchTargetOf, regionFromHost } from './args/values';
import {
  type AwsClients,
  isMissingStack,
  lazyClients,
  type SearchStackResources,
  searchStackResources,
} from './aws';
import { type AwsTarget, resolveAwsTarget } from './aws-target';
import { CliError, UsageError } from './errors';
import type { CliIo } from './io';
import { PROJECT_CDK_JSON, profileConfig } from './profile';

export interface RunContext {
  readonly io: CliIo;
  /** The command's name: what its messages start with. */
  readonly command: string;
  readonly clock: Clock;
  /** Where AWS calls go: `--endpoint` and `--region` read with the environment (cli/aws-target.ts). */
  readonly target: AwsTarget;
  /** Made on first use; closed when the command ends. */
  readonly aws: AwsClients;
  /** A path as given on the command line, against the working folder. */
  readonly resolve: (given: string) => string;
  /**
   * The cdk.json profile (cli/profile.ts); its usage errors start with the command's name.
   * @param readHint - what to do instead when cdk.json cannot be read
   */
  readonly profile: (name: string | undefined, readHint?: string) => PipelineConfig;
  /** The fixed names of the profile's resources (core/contracts/physical-names.ts): no AWS call needed. */
  readonly namesOf: (config: PipelineConfig) => PhysicalNames;
  /**
   * The physical ids of the profile's deployed Search stack (`<name>-<profile>-search`), looked up once.
   * @param instead - what the operator can pass instead when the stack does not exist
   */
  readonly searchStack: (config: PipelineConfig, instead: string) => Promise<SearchStackResources>;
  /**
   * A client of the OpenSearch at `url`: a user:password in it is basic auth (and left out of every message), and
   * `sigv4` signs in `--region`, AWS_REGION or the region of the host name, for the service
   * {@link RunContext.openSearchTarget} picks (a collection is always signed, for `aoss`).
   */
  readonly openSearch: (url: string, access: boolean | OpenSearchAccess) => OpenSearchHttpClient;
  /** The kind of OpenSearch at `url` and what it accepts (core/opensearch/target.ts); usage errors name the command. */
  readonly openSearchTarget: (url: string, access: OpenSearchAccess) => OpenSearchTarget;
  /** `--local-dir` resolved; a folder that is not there is a bad command line, never "nothing kept". */
  readonly localFolder: (given: string) => Promise<string>;
}

/** How a command was told to reach OpenSearch. */
export interface OpenSearchAccess {
  /** `--sigv4`. */
  readonly sigv4: boolean;
  /**
   * `--service es|aoss`.
   * @default - the profile's kind, else the host name's (`*.aoss.amazonaws.com` is a collection)
   */
  readonly service?: string;
  /** @default - no profile read */
  readonly config?: PipelineConfig;
}

/** A run's context, and how to close what it opened. */
export interface OpenedContext extends RunContext {
  readonly close: () => void;
}

/** The options every command's target is read from. */
export interface GivenTarget {
  readonly endpoint?: string;
  readonly region?: string;
}

export function openContext(command: string, given: GivenTarget, io: CliIo): OpenedContext {
  const target = resolveAwsTarget(given, io.env);
  const stacks = new Map<string, Promise<SearchStackResources>>();
  const aws = lazyClients(given, io.env);
  const context: OpenedContext = {
    io,
    command,
    clock: { now: io.now ?? Date.now, sleep },
    target,
    aws,
    resolve: (given) => path.resolve(io.cwd ?? process.cwd(), given),
    profile: (name, readHint) =>
      forCommand(command, () => profileConfig(name, io.cdkJson ?? PROJECT_CDK_JSON, readHint)),
    namesOf: (config) => physicalNamesFor(`${config.name}-${config.profile}`),
    searchStack: (config, instead) => {
      const stack = `${config.name}-${config.profile}-search`;
      const found =
        stacks.get(stack) ??
        searchStackResources(context.aws.cloudformation, stack).catch((error: unknown) => {
          if (isMissingStack(error)) {
            throw new CliError(
              `${command}: stack ${stack} does not exist in ${target.region ?? 'this region'}: deploy profile ` +
                `${config.profile}, check --region (or AWS_REGION), or ${instead}`,
              { cause: error },
            );
          }
          throw translateAwsError(error, `DescribeStackResources of ${stack}`, { endpoint: target.endpoint });
        });
      stacks.set(stack, found);
      return found;
    },
    openSearchTarget: (url, access) => targetOf(command, url, access),
    openSearch: (url, access) => {
      const how = typeof access === 'boolean' ? { sigv4: access } : access;
      const { service, mustSign } = targetOf(command, url, how);
      return openSearchClient(command, url, how.sigv4 || mustSign ? service : undefined, given, io, target);
    },
    localFolder: async (given) => {
      const root = context.resolve(given);
      let info;
      try {
        info = await stat(root);
      } catch (error) {
        const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
        throw new UsageError(
          missing
            ? `${command}: --local-dir ${given} does not exist (${root}), so it is not a folder to read: pass npm ` +
                "start's work folder (.kfek/local by default, or the folder npm start printed)"
            : `${command}: cannot read --local-dir ${given} (${root}): ${(error as Error).message}`,
        );
      }
      if (!info.isDirectory()) {
        throw new UsageError(
          `${command}: --local-dir ${given} (${root}) is not a folder: pass npm start's work folder (.kfek/local)`,
        );
      }
      return root;
    },
    close: () => aws.destroy(),
  };
  return context;
}

function targetOf(command: string, url: string, access: OpenSearchAccess): OpenSearchTarget {
  const kind = access.config?.openSearch.kind;
  return openSearchTargetOf(command, {
    host: new URL(url).hostname,
    ...(kind !== undefined ? { kind } : {}),
    ...(access.service !== undefined ? { service: access.service } : {}),
  });
}

function openSearchClient(
  command: string,
  text: string,
  sigv4: OpenSearchSigningService | undefined,
  given: GivenTarget,
  io: CliIo,
  target: AwsTarget,
): OpenSearchHttpClient {
  const url = new URL(text);
  let auth: HttpAuth = { kind: 'none' };
  if (url.username !== '') {
    auth = {
      kind: 'basic',
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
    // Keep the secret out of every message that prints the base URL.
    url.username = '';
    url.password = '';
  }
  if (sigv4 !== undefined) {
    const region =
      resolveAwsTarget({ ...(given.region !== undefined ? { region: given.region } : {}) }, io.env, {
        defaultRegion: () => regionFromHost(url.hostname),
      }).region ?? target.region;
    if (region === undefined) throw new UsageError(`${command}: --sigv4 needs --region (or AWS_REGION)`);
    auth = { kind: 'sigv4', region, service: sigv4 };
  }
  return createHttpClient({ baseUrl: url.toString().replace(/\/$/, ''), auth, maxAttempts: 3 });
}
