/**
 * What kfek's own indexer (issue 41, direct delivery) kept of a fault run: its failed-documents objects in moto's S3,
 * in Firehose's layout, read with core/kept/parse as `kfek replay` reads them. The fault suites (fault-suite.ts) on a
 * domain and on a collection assert on these.
 */
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { parseFailedDocuments } from '../../../core/kept/parse';
import { localFailedDocumentsPrefix } from '../../../scripts/local/direct-delivery';
import type { LocalPipeline } from '../../../scripts/local/pipeline';

/** One refused document the direct indexer kept in moto's S3, as `kfek replay` parses it (core/kept/parse). */
export interface KeptDocument {
  readonly key: string;
  readonly reason: string;
  readonly data: string;
}

/** Every failed-documents object the direct indexer wrote to moto's S3, parsed as `kfek replay` parses them. */
export async function keptDocuments(pipeline: LocalPipeline): Promise<KeptDocument[]> {
  const { s3 } = pipeline.clients;
  const bucket = pipeline.resources.deadLetterBucket;
  const listed = await s3.send(
    new ListObjectsV2Command({ Bucket: bucket, Prefix: localFailedDocumentsPrefix(pipeline.props.spec) }),
  );
  const kept: KeptDocument[] = [];
  for (const { Key: key } of listed.Contents ?? []) {
    if (key === undefined) continue;
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const body = await (out.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray();
    const parsed = parseFailedDocuments(body, { location: key, handle: key, sizeBytes: body.length });
    if (parsed.problems.length > 0) {
      throw new Error(`kfek replay could not read ${key}: ${JSON.stringify(parsed.problems)}`);
    }
    for (const item of parsed.items) {
      const records = item.content.type === 'records' ? item.content.records : [];
      for (const r of records) kept.push({ key, reason: item.reason, data: Buffer.from(r.data).toString() });
    }
  }
  return kept;
}
