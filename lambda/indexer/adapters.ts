/**
 * The AWS side of the indexer's ports: `_bulk` signed with SigV4 (core/aws-signing.ts, service `es`) over the
 * runtime's fetch (keep-alive connections), and failed-documents objects put to S3.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { defaultCredentialProvider, signRequest } from '../../core/aws-signing';
import { DEFAULT_SIGNING_SERVICE, type OpenSearchSigningService } from '../../core/contracts/indexer-env';
import { DIRECT_BULK_PATH } from '../../core/delivery/bulk-body';
import { name as one, requestPath } from '../../core/opensearch/request-path';
import { routeRecordPath } from '../../core/opensearch/route-record';
import type { BulkPort, BulkResponse, FailedDocumentStore, PipelinePort, RouteRecordPort } from './ports';

export interface SignedBulkOptions {
  /** `https://host` of the domain. */
  readonly endpoint: string;
  readonly region: string;
  /** The SigV4 service: `es` for a domain, `aoss` for a Serverless collection. @default 'es' */
  readonly service?: OpenSearchSigningService;
  /** @default - the Node.js default credential chain (the function's role) */
  readonly credentials?: AwsCredentialIdentityProvider;
}

/** One request to the domain, signed, over the runtime's fetch; the answer whatever its status. */
function signedRequester(
  options: SignedBulkOptions,
): (method: 'GET' | 'POST', target: string, timeoutMillis: number, body?: string) => Promise<BulkResponse> {
  const origin = new URL(options.endpoint);
  let credentials: AwsCredentialIdentityProvider | undefined = options.credentials;
  return async (method, target, timeoutMillis, body) => {
    credentials ??= await defaultCredentialProvider();
    const signed = await signRequest(
      { service: options.service ?? DEFAULT_SIGNING_SERVICE, region: options.region, credentials },
      {
        method,
        origin,
        target,
        headers: body === undefined ? {} : { 'content-type': 'application/x-ndjson' },
        ...(body === undefined ? {} : { body }),
      },
    );
    // fetch sets host itself, from the URL: the same value that was signed.
    const { host: _host, ...headers } = signed.headers;
    const response = await fetch(new URL(`${origin.origin}${signed.target}`), {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(timeoutMillis),
    });
    return { status: response.status, text: await response.text() };
  };
}

/**
 * `POST /_bulk?pipeline=_none`, signed for service `es` (IAM needs only `es:ESHttpPost` on `<domain>/_bulk`) or
 * `aoss` (a collection: `aoss:APIAccessAll`, then its data access policy).
 */
export function signedBulkPort(options: SignedBulkOptions): BulkPort {
  const send = signedRequester(options);
  return { bulk: (body, timeoutMillis) => send('POST', DIRECT_BULK_PATH, timeoutMillis, body) };
}

/** `GET /_ingest/pipeline/<name>`, signed (IAM: `es:ESHttpGet` on `<domain>/_ingest/pipeline/<name>`). */
export function signedPipelinePort(options: SignedBulkOptions): PipelinePort {
  const send = signedRequester(options);
  return {
    get: (name, timeoutMillis) =>
      send('GET', requestPath(['_ingest', 'pipeline', one('ingest pipeline', name)]), timeoutMillis),
  };
}

/** `GET /<record index>/_doc/routes`, signed (a collection's data access policy: `aoss:ReadDocument` on that index). */
export function signedRouteRecordPort(options: SignedBulkOptions): RouteRecordPort {
  const send = signedRequester(options);
  return { get: (index, timeoutMillis) => send('GET', routeRecordPath(index), timeoutMillis) };
}

/** The S3 client of failed-documents objects (path-style for emulators; the SDK's standard retries). */
export function createS3Client(forcePathStyle: boolean): S3Client {
  return new S3Client({ forcePathStyle, requestHandler: new NodeHttpHandler({ connectionTimeout: 2000 }) });
}

export function s3FailedDocumentStore(client: S3Client, bucket: string): FailedDocumentStore {
  return {
    async put(key: string, body: string): Promise<void> {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'application/x-ndjson' }),
      );
    },
  };
}
