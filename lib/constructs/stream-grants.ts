import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';

/**
 * Lets `role` put records on `stream`: `kinesis:PutRecord(s)` on the stream and, for a KMS-encrypted stream,
 * `kms:GenerateDataKey` on its key (Kinesis SSE producers need it:
 * https://docs.aws.amazon.com/streams/latest/dev/permissions-user-key-KMS.html). Narrower than `stream.grantWrite`,
 * which adds reads of the stream's metadata and every KMS encrypt action.
 */
export function grantStreamPut(role: iam.IRole, stream: kinesis.IStream): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['kinesis:PutRecord', 'kinesis:PutRecords'],
      resources: [stream.streamArn],
    }),
  );
  if (stream.encryptionKey) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['kms:GenerateDataKey'],
        resources: [stream.encryptionKey.keyArn],
      }),
    );
  }
}
