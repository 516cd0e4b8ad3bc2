/**
 * The SDK clients the handlers build: HTTP/1.1 with connections kept alive, no SDK-level retries for Kinesis.
 * Checked against a local HTTP/1.1 server on 127.0.0.1 that counts TCP connections.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { createKinesisClient, createS3Client } from '../../../lambda/transform/aws-clients';

let server: Server;
let endpoint: string;
let connections = 0;
let requests: Array<{ method?: string; url?: string; httpVersion: string }> = [];
let answer: { status: number; body: string; type: string } = {
  status: 200,
  body: '{}',
  type: 'application/json',
};
const savedEnv = { ...process.env };

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ method: req.method, url: req.url, httpVersion: req.httpVersion });
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': answer.type });
      res.end(answer.body);
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
  });
});

afterAll(async () => {
  process.env = savedEnv;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  connections = 0;
  requests = [];
});

const putRecords = () =>
  new PutRecordsCommand({
    StreamARN: 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events',
    Records: [{ Data: Buffer.from('{}'), PartitionKey: 'k' }],
  });

test('the Kinesis client speaks HTTP/1.1 to AWS_ENDPOINT_URL and reuses one connection', async () => {
  // GIVEN
  answer = {
    status: 200,
    type: 'application/x-amz-json-1.1',
    body: JSON.stringify({
      FailedRecordCount: 0,
      Records: [{ SequenceNumber: '1', ShardId: 'shardId-000000000000' }],
    }),
  };
  const client = createKinesisClient();
  try {
    // WHEN
    for (let i = 0; i < 3; i++) await client.send(putRecords());
    // THEN
    expect(requests.map((r) => r.httpVersion)).toEqual(['1.1', '1.1', '1.1']);
    expect(connections).toBe(1);
  } finally {
    client.destroy();
  }
});

test('the Kinesis client makes exactly one attempt: the writer owns retries', async () => {
  // GIVEN: a 500 that the SDK's standard strategy would retry twice more.
  answer = { status: 500, type: 'application/x-amz-json-1.1', body: '{"__type":"InternalFailure"}' };
  const client = createKinesisClient();
  try {
    await expect(client.send(putRecords())).rejects.toMatchObject({ $metadata: { httpStatusCode: 500 } });
    expect(requests).toHaveLength(1);
  } finally {
    client.destroy();
  }
});

test('the S3 client uses path-style addressing when an endpoint override is set, and keeps the connection', async () => {
  answer = { status: 200, type: 'application/xml', body: '' };
  const client = createS3Client({ s3ForcePathStyle: true });
  try {
    await client.send(new PutObjectCommand({ Bucket: 'kfek-dead-letter', Key: 'a/b.json', Body: '{}' }));
    await client.send(new PutObjectCommand({ Bucket: 'kfek-dead-letter', Key: 'a/c.json', Body: '{}' }));
    expect(requests.map((r) => `${r.method} ${r.url?.split('?')[0]}`)).toEqual([
      'PUT /kfek-dead-letter/a/b.json',
      'PUT /kfek-dead-letter/a/c.json',
    ]);
    expect(connections).toBe(1);
  } finally {
    client.destroy();
  }
});
