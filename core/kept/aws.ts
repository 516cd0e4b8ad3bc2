/**
 * The SDK side of the kept data's ports: an S3 bucket of kept objects, and the pipe's dead-letter queue in SQS.
 * Clients take the SDK's endpoint variables, so the same code runs against moto.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MessageQueue, ObjectStore, QueuedMessage, StoredObject } from './ports';

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
