import { readdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { FailedDocumentRecord } from '../../core/delivery/failed-documents';

/**
 * Reads every failed-document record under a folder (the local stand-in for Firehose's S3 backup prefix): files of
 * newline-separated JSON records, in any subfolder. A missing folder holds no records.
 */
export async function readFailedDocuments(folder: string): Promise<FailedDocumentRecord[]> {
  let entries;
  try {
    entries = await readdir(folder, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records: FailedDocumentRecord[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const text = await readFile(path.join(entry.parentPath, entry.name), 'utf8');
    for (const line of text.split('\n')) {
      if (line.trim() !== '') records.push(JSON.parse(line) as FailedDocumentRecord);
    }
  }
  return records;
}
