/**
 * `kfek replay`'s AWS clients (the kept data's S3 and SQS ports are core/kept/aws.ts, Kinesis' core/kinesis/aws.ts),
 * and the lookup of the deployed Search stack's resources for
 * `--profile`. Clients take the SDK's endpoint variables, so the same code runs against moto.
 */
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';

export interface AwsClientOptions {
  readonly region?: string;
  /** @default - the SDK's endpoint variables (`AWS_ENDPOINT_URL`...), else AWS */
  readonly endpoint?: string;
}

export interface ReplayAwsClients {
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly kinesis: KinesisClient;
  readonly cloudformation: CloudFormationClient;
  destroy(): void;
}

export function createReplayClients(options: AwsClientOptions): ReplayAwsClients {
  const common = {
    ...(options.region !== undefined ? { region: options.region } : {}),
    ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
    // HTTP/1.1: moto refuses the Kinesis client's default HTTP/2 handler; AWS takes either.
    requestHandler: new NodeHttpHandler({ connectionTimeout: 5_000, requestTimeout: 60_000 }),
  };
  const clients = {
    // Path-style addressing: a local endpoint has no per-bucket host names.
    s3: new S3Client({ ...common, forcePathStyle: options.endpoint !== undefined }),
    sqs: new SQSClient(common),
    kinesis: new KinesisClient(common),
    cloudformation: new CloudFormationClient(common),
  };
  return {
    ...clients,
    destroy: () => Object.values(clients).forEach((client) => client.destroy()),
  };
}

/** Physical ids of the Search stack's resources replay needs (`kfek-<profile>-search`). */
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
  const bucket = find('FailedRecordsBucket', 'AWS::S3::Bucket');
  const rawStream = find('RawStream', 'AWS::Kinesis::Stream');
  const eventsStream = find('EventsStream', 'AWS::Kinesis::Stream');
  const queueUrl = find('FailureQueue', 'AWS::SQS::Queue');
  return {
    ...(bucket !== undefined ? { bucket } : {}),
    ...(rawStream !== undefined ? { rawStream } : {}),
    ...(eventsStream !== undefined ? { eventsStream } : {}),
    ...(queueUrl !== undefined ? { queueUrl } : {}),
  };
}
