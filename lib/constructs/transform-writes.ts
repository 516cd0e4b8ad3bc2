/**
 * What a transform function writes, for both transports: the Kinesis handler, and the Pipes enrichment (which
 * dead-letters poison records and writes answers too large for the pipe itself). One place for the environment
 * grants that let it (the environment itself is written by core/contracts/transform-env.ts).
 */
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { WildcardJustification } from '../nag';
import { grantPrefixWrite } from './prefix-write';
import { grantPutRecords } from './stream-write';

export interface TransformWritesProps {
  /** The events stream the function writes with PutRecords. */
  readonly eventsStream: kinesis.IStream;
  /** The bucket of dead-letter objects. */
  readonly bucket: s3.IBucket;
  /** Key prefix of dead-letter objects (config `transform.deadLetterPrefix`). */
  readonly deadLetterPrefix: string;
}

/**
 * Grants `role` PutRecords on the events stream (by ARN only, as the writer calls it; producers of a KMS stream
 * need kms:GenerateDataKey) and PutObject under the dead-letter prefix (with the bucket key's GenerateDataKey).
 * Returns the justification of the prefix wildcard for `justifyWildcardResources`.
 */
export function grantTransformWrites(role: iam.IRole, props: TransformWritesProps): WildcardJustification {
  grantPutRecords(props.eventsStream, role);
  // Poison records are written under the dead-letter prefix only.
  return grantPrefixWrite(
    role,
    props.bucket,
    props.deadLetterPrefix,
    'The transform names each dead-letter object itself (time and sequence number) under this prefix.',
  );
}
