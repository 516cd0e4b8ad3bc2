import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';

/**
 * Lets `grantee` put records on `stream` by its ARN: kinesis:PutRecord(s) on the stream and, for a KMS-encrypted
 * stream, kms:GenerateDataKey on its key, which every producer of an SSE stream needs
 * (https://docs.aws.amazon.com/streams/latest/dev/permissions-user-key-KMS.html).
 *
 * Not `stream.grantWrite`: that also grants kinesis:ListShards and kms:Encrypt/ReEncrypt*, which no writer here
 * (CloudWatch Logs, the transform, Pipes) calls. The S3 counterpart is bucket-key.ts.
 */
export function grantPutRecords(stream: kinesis.IStream, grantee: iam.IGrantable): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['kinesis:PutRecord', 'kinesis:PutRecords'],
      resources: [stream.streamArn],
    }),
  );
  if (stream.encryptionKey) {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['kms:GenerateDataKey'], resources: [stream.encryptionKey.keyArn] }),
    );
  }
}
