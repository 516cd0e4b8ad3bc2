import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';

/** What the writer of an SSE-KMS bucket does besides single-part PutObject. */
export interface BucketKeyWriteOptions {
  /**
   * The writer uploads in parts: S3 then also decrypts the upload's data key to finish it, so it needs
   * kms:Decrypt (https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html#mpuAndPermissions).
   * @default false - single-part PutObject only: kms:GenerateDataKey
   */
  readonly multipartUploads?: boolean;
}

/**
 * Lets `grantee` write objects that S3 encrypts with the bucket's default KMS key: S3 calls KMS as the writer, so
 * the writer's identity needs kms:GenerateDataKey on the key (the key policy's account statement delegates to IAM
 * in the same account, so no key policy change is needed). A no-op for a bucket without a customer managed key.
 *
 * Scoped to the key ARN only, with no `kms:EncryptionContext:aws:s3:arn` condition: with S3 Bucket Keys the context
 * is the bucket ARN, and a condition on object ARNs would refuse every write.
 */
export function grantBucketKeyWrite(
  bucket: s3.IBucket,
  grantee: iam.IGrantable,
  options: BucketKeyWriteOptions = {},
): iam.Grant | undefined {
  const actions =
    options.multipartUploads === true ? ['kms:GenerateDataKey', 'kms:Decrypt'] : ['kms:GenerateDataKey'];
  return bucket.encryptionKey?.grant(grantee, ...actions);
}
