import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** Dummy credentials: moto accepts any; they never leave 127.0.0.1. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'kfeklocal', secretAccessKey: 'kfeklocal' } as const;

/** The SDK clients the local runner uses against moto. */
export interface LocalAwsClients {
  readonly kinesis: KinesisClient;
  readonly logs: CloudWatchLogsClient;
  readonly s3: S3Client;
  /** Closes the clients' sockets (keep-alive connections would otherwise hold the process open). */
  destroy(): void;
}

/**
 * Clients pointed at a local endpoint. Each gets an HTTP/1.1 handler: the SDK's Kinesis client otherwise
 * negotiates HTTP/2 for some operations, which moto rejects (`ERR_HTTP2_ERROR`); S3 uses path-style addressing
 * because `<bucket>.127.0.0.1` is not a host.
 */
export function localAwsClients(endpoint: string, region: string): LocalAwsClients {
  const common = { endpoint, region, credentials: LOCAL_CREDENTIALS, maxAttempts: 3 } as const;
  const kinesis = new KinesisClient({ ...common, requestHandler: new NodeHttpHandler() });
  const logs = new CloudWatchLogsClient({ ...common, requestHandler: new NodeHttpHandler() });
  const s3 = new S3Client({ ...common, forcePathStyle: true, requestHandler: new NodeHttpHandler() });
  return {
    kinesis,
    logs,
    s3,
    destroy() {
      kinesis.destroy();
      logs.destroy();
      s3.destroy();
    },
  };
}

/** The variables a function run locally gets for moto: the region (as Lambda sets it), dummy credentials, the endpoint. */
export function localAwsEnvironment(region: string, endpoint: string): Record<string, string> {
  return {
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL: endpoint,
  };
}
