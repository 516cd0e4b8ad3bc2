/**
 * The one grant for writing objects under a key prefix of the failed-records bucket (the transform's dead letters,
 * the indexer's failed documents): PutObject on `<prefix>*` only, and the bucket key's kms:GenerateDataKey.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { WildcardJustification } from '../nag';
import { grantBucketKeyWrite } from './bucket-key';

/**
 * Grants `role` s3:PutObject on the objects under `prefix` (no read, no delete) and, with an SSE-KMS bucket,
 * kms:GenerateDataKey on its key (S3 encrypts as the writer). Returns the justification of the prefix wildcard for
 * `justifyWildcardResources`, with `why` saying who names the objects.
 */
export function grantPrefixWrite(
  role: iam.IRole,
  bucket: s3.IBucket,
  prefix: string,
  why: string,
): WildcardJustification {
  const objects = bucket.arnForObjects(`${prefix}*`);
  role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [objects] }));
  grantBucketKeyWrite(bucket, role);
  return { resource: objects, reason: why };
}
