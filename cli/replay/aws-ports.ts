/**
 * The AWS side of `kfek replay`'s ports: S3 (bucket of kept objects), SQS (the pipe's dead-letter queue), the clients
 * (Kinesis' port is core/kinesis/aws.ts), and the lookup of the deployed Search stack's resources for
 * `--profile`. Clients take the SDK's endpoint variables, so the same code runs against moto.
 */
import { CloudFormationClient, DescribeStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { MessageQueue, ObjectStore, QueuedMessage, StoredObject } from './ports';

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

export function s3ObjectStore(s3: S3Client, bucket: string): ObjectStore {
  return {
    locationOf: (key) => `s3://${bucket}/${key}`,
    async list(prefix) {
      const objects: StoredObject[] = [];
      let token: string | undefined;
      do {
        const out = await s3.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const o of out.Contents ?? []) {
          if (o.Key === undefined || o.Key.endsWith('/')) continue;
          objects.push({
            key: o.Key,
            sizeBytes: o.Size ?? 0,
            ...(o.LastModified !== undefined ? { lastModified: o.LastModified } : {}),
          });
        }
        token = out.IsTruncated === true ? out.NextContinuationToken : undefined;
      } while (token !== undefined);
      return objects;
    },
    async read(key) {
      const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return (await out.Body?.transformToByteArray()) ?? new Uint8Array();
    },
    async delete(key) {
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}

export function sqsQueue(sqs: SQSClient, queueUrl: string): MessageQueue {
  return {
    location: queueUrl,
    async peekAll(max) {
      const seen = new Map<string, QueuedMessage>();
      // Receiving with VisibilityTimeout 0 leaves every message visible (nothing is consumed); SQS samples its
      // servers, so stop only after a few answers in a row brought nothing new.
      for (let quiet = 0; quiet < 3 && seen.size < max;) {
        const out = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            VisibilityTimeout: 0,
            WaitTimeSeconds: 0,
            MessageSystemAttributeNames: ['SentTimestamp'],
          }),
        );
        let fresh = 0;
        for (const m of out.Messages ?? []) {
          if (m.MessageId === undefined || m.ReceiptHandle === undefined) continue;
          const known = seen.get(m.MessageId);
          if (known !== undefined) {
            // DeleteMessage wants the handle of the latest receipt (SQS DeleteMessage reference).
            seen.set(m.MessageId, { ...known, receiptHandle: m.ReceiptHandle });
            continue;
          }
          const sent = Number(m.Attributes?.SentTimestamp);
          seen.set(m.MessageId, {
            messageId: m.MessageId,
            body: m.Body ?? '',
            receiptHandle: m.ReceiptHandle,
            ...(Number.isFinite(sent) && sent > 0 ? { sentAt: new Date(sent) } : {}),
          });
          fresh += 1;
        }
        quiet = fresh === 0 ? quiet + 1 : 0;
      }
      return [...seen.values()].slice(0, max);
    },
    async delete(receiptHandle) {
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }));
    },
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
