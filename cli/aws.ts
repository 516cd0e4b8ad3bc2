/**
 * The AWS side every command shares: its clients, each made on first use at the run's target and all closed when
 * the command ends (cli/context.ts holds them), and the lookup of the deployed Search stack's resources. The same
 * code runs against moto.
 */
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { translateAwsError } from '../core/aws/retry';
import { resolveAwsTarget } from './aws-target';

export interface AwsClients {
  readonly logs: CloudWatchLogsClient;
  readonly kinesis: KinesisClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly cloudformation: CloudFormationClient;
}

/**
 * The clients of a run, made when first read, each where cli/aws-target.ts says for its service (`--endpoint`, else
 * `AWS_ENDPOINT_URL_<SERVICE>` or `AWS_ENDPOINT_URL` of the environment given, else AWS).
 */
export function lazyClients(
  given: { readonly region?: string; readonly endpoint?: string },
  env: Readonly<Record<string, string | undefined>>,
): AwsClients & { destroy(): void } {
  const made = new Map<keyof AwsClients, { destroy(): void }>();
  const config = (service: string) => {
    const { region, endpoint } = resolveAwsTarget(given, env, { service });
    return {
      ...(region !== undefined ? { region } : {}),
      ...(endpoint !== undefined ? { endpoint } : {}),
      // HTTP/1.1: moto refuses the Kinesis client's default HTTP/2 handler; AWS takes either.
      requestHandler: new NodeHttpHandler({ connectionTimeout: 5_000, requestTimeout: 60_000 }),
    };
  };
  const make = {
    // One attempt per call: the retries are ours (core/aws/retry.ts withRetries).
    logs: () => new CloudWatchLogsClient({ ...config('CLOUDWATCH_LOGS'), maxAttempts: 1 }),
    kinesis: () => new KinesisClient(config('KINESIS')),
    // Path-style addressing: a local endpoint has no per-bucket host names.
    s3: () => {
      const s3 = config('S3');
      return new S3Client({ ...s3, forcePathStyle: s3.endpoint !== undefined });
    },
    sqs: () => new SQSClient(config('SQS')),
    cloudformation: () => new CloudFormationClient(config('CLOUDFORMATION')),
  };
  const get = <K extends keyof AwsClients>(name: K): AwsClients[K] => {
    if (!made.has(name)) {
      try {
        made.set(name, make[name]());
      } catch (error) {
        // The SDK checks some settings as it builds the client ("Region is missing"), outside any call.
        throw translateAwsError(error, `Creating the ${name} client`);
      }
    }
    return made.get(name) as AwsClients[K];
  };
  return {
    get logs() {
      return get('logs');
    },
    get kinesis() {
      return get('kinesis');
    },
    get s3() {
      return get('s3');
    },
    get sqs() {
      return get('sqs');
    },
    get cloudformation() {
      return get('cloudformation');
    },
    destroy: () => made.forEach((client) => client.destroy()),
  };
}

/** CloudFormation answers a missing stack with a ValidationError "Stack with id X does not exist". */
export function isMissingStack(error: unknown): boolean {
  const { name, message } = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
  };
  return name === 'ValidationError' && /does not exist/.test(String(message));
}

/** Physical ids of the Search stack's resources the commands look up (`<name>-<profile>-search`). */
export interface SearchStackResources {
  readonly bucket?: string;
  readonly rawStream?: string;
  readonly eventsStream?: string;
  readonly queueUrl?: string;
}

/** Reads them from CloudFormation by logical id prefix (construct ids are stable: STYLE.md habit 7). */
export async function searchStackResources(
  cfn: CloudFormationClient,
  stackName: string,
): Promise<SearchStackResources> {
  const out = await cfn.send(new DescribeStackResourcesCommand({ StackName: stackName }));
  const find = (prefix: string, type: string): string | undefined =>
    (out.StackResources ?? []).find(
      (r) => r.ResourceType === type && (r.LogicalResourceId ?? '').startsWith(prefix),
    )?.PhysicalResourceId;
  return {
    bucket: find('FailedRecordsBucket', 'AWS::S3::Bucket'),
    rawStream: find('RawStream', 'AWS::Kinesis::Stream'),
    eventsStream: find('EventsStream', 'AWS::Kinesis::Stream'),
    queueUrl: find('FailureQueue', 'AWS::SQS::Queue'),
  };
}
