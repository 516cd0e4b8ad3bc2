/**
 * The stack the direct-path end-to-end tests share (test/e2e/direct-*.test.ts): moto (one request at a time) and the
 * real node under the local pipeline with kfek's own indexer (`npm start -- --delivery direct`), one profile written
 * to a cdk.json of its own, and `kfek` run in-process against them with that cdk.json. Registers the file's
 * beforeAll and afterAll.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { resolveConfig } from '../../core/config';
import { LOCAL_CREDENTIALS } from '../../scripts/local/aws-clients';
import { type CliOutcome, runKfek } from './cli-run';
import { type LocalStack, LocalStackRunner } from './local-stack';
import { OPENSEARCH_START_TIMEOUT_MILLIS } from './opensearch';
import { testTempDir } from './temp-dirs';

export interface DirectStack {
  /** The running stack; throws when beforeAll did not get that far. */
  get(): LocalStack;
  /** `npx kfek <command> --endpoint <moto> --region <region> <args>`, reading the profile from this stack's cdk.json. */
  kfek(command: string, ...args: string[]): Promise<CliOutcome>;
}

export interface DirectStackProfile {
  /** The log group the pipeline subscribes (created by the run). */
  readonly logGroup: string;
  /** The profile's `transform` settings (its event source settings are the indexer's too, locally). */
  readonly transform: Record<string, unknown>;
}

/**
 * Starts the stack for `profile` (one shard per stream, no replicas) before the file's tests, and stops it after
 * them.
 */
export function useDirectStack(profile: string, { logGroup, transform }: DirectStackProfile): DirectStack {
  const settings = {
    sources: { logGroups: [{ name: logGroup, create: true }] },
    streams: { raw: { shardCount: 1 }, events: { shardCount: 1 } },
    transform,
    openSearch: { indexTemplate: { replicas: 0 } },
  };
  const context = { kfek: { profiles: { [profile]: settings } } };
  const stack = new LocalStackRunner();
  let cdkJson: string | undefined;
  beforeAll(async () => {
    cdkJson = path.join(testTempDir(`kfek-${profile}-`), 'cdk.json');
    writeFileSync(cdkJson, JSON.stringify({ context }));
    await stack.start(resolveConfig(context, profile), {
      workDirPrefix: `kfek-${profile}-`,
      delivery: 'direct',
      serializedMoto: true,
    });
  }, OPENSEARCH_START_TIMEOUT_MILLIS);
  afterAll(() => stack.stop(), 60_000);
  return {
    get: () => stack.get(),
    kfek(command, ...args) {
      const { moto, spec } = stack.get();
      return runKfek(
        [command, '--endpoint', moto.endpoint, '--region', spec.region, ...args],
        {
          AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
        },
        cdkJson,
      );
    },
  };
}
