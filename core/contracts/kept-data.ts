/**
 * Where kfek keeps what failed, as far as the places are fixed rather than configured: one owner for the CDK app
 * (grants), the local runner (its stand-in folders) and `kfek replay` (which reads them back). The configured
 * prefixes (`transform.deadLetterPrefix`, `delivery.failedDocumentsPrefix`) live in the config model.
 */

/**
 * The key prefix Lambda writes a Kinesis event source mapping's discarded batches under. Lambda chooses the key
 * itself, `aws/lambda/<mapping UUID>/<shard id>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<UUID>`; it cannot be configured.
 * https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html
 */
export const ON_FAILURE_KEY_PREFIX = 'aws/lambda/';

/**
 * Sub-folders of `npm start`'s work folder (`.kfek/local/`) that stand in for the S3 places: Firehose's failed
 * documents and the event source mapping's on-failure destination. `deadLetter` is not written by the runner (its
 * poison records go to moto's dead-letter bucket); `kfek replay --local` reads dead-letter objects copied there.
 */
export const LOCAL_KEPT_FOLDERS = {
  failedDocuments: 'failed-documents',
  onFailure: 'event-source-on-failure',
  deadLetter: 'dead-letter',
} as const;
