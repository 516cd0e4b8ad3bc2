/**
 * The resource types that hold data or state a new resource does not have, and what replacing or deleting one loses.
 */

/** What is at risk when a resource of the type is replaced or deleted, as one sentence. */
export const STATEFUL_TYPES: Readonly<Record<string, string>> = {
  'AWS::Kinesis::Stream':
    'The records on the stream (kept up to its retention period) that were not read yet are lost, and the stream gets a new ARN.',
  'AWS::OpenSearchService::Domain':
    'Every index and document, the Dashboards objects and the security mappings are lost: the new domain starts empty.',
  'AWS::S3::Bucket':
    'The objects in the bucket (records kept because they could not be delivered) are not in the new one, and CloudFormation cannot delete the old bucket while it holds objects.',
  'AWS::KMS::Key':
    'Data encrypted under the key (stream records, bucket objects, queue messages) can no longer be decrypted once the old key is deleted, 7 to 30 days later.',
  'AWS::Logs::LogGroup': 'The log events stored in the log group are lost.',
  'AWS::KinesisFirehose::DeliveryStream':
    'Records buffered in the delivery stream are lost, and a new delivery stream starts reading its source stream at its creation time: it never delivers what was already on the stream.',
  'AWS::SQS::Queue': 'The messages in the queue are lost.',
  'AWS::Logs::Destination':
    "Source accounts' subscription filters send to the destination's ARN: log events sent while it is missing are lost.",
};

export const isStateful = (type: string): boolean => type in STATEFUL_TYPES;

/** The data-at-risk sentence of a replaced resource; empty for a type without state. */
export function replacementRisk(type: string, oldRetained: boolean): string {
  const risk = STATEFUL_TYPES[type];
  if (risk === undefined) return '';
  return oldRetained
    ? `${risk} (The old one is kept with its data, UpdateReplacePolicy Retain, but nothing uses it any more.)`
    : risk;
}

/** The data-at-risk sentence of a deleted resource; empty when it has no state or is retained. */
export function deletionRisk(type: string, retained: boolean): string {
  return retained ? '' : (STATEFUL_TYPES[type] ?? '');
}
