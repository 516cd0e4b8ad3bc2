/** A local folder as an {@link ObjectStore}: what `npm start` keeps under `.kfek/local/` (docs/local.md). */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { LOCAL_KEPT_FOLDERS } from '../../core/contracts/kept-data';
import type { ObjectStore, StoredObject } from '../../core/kept/ports';

/** Key prefixes of each kind in `npm start`'s work folder (docs/local.md "Files"). */
export const LOCAL_LAYOUT = {
  deadLetter: `${LOCAL_KEPT_FOLDERS.deadLetter}/`,
  discardedBatches: `${LOCAL_KEPT_FOLDERS.onFailure}/`,
  failedDocuments: `${LOCAL_KEPT_FOLDERS.failedDocuments}/`,
} as const;

export function folderStore(root: string): ObjectStore {
  return {
    locationOf: (key) => path.join(root, key),
    async list(prefix) {
      const dir = path.join(root, prefix);
      let entries;
      try {
        entries = await readdir(dir, { recursive: true, withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const objects: StoredObject[] = [];
      for (const entry of entries) {
        if (!entry.isFile()) continue;
        const full = path.join(entry.parentPath, entry.name);
        const info = await stat(full);
        objects.push({ key: path.relative(root, full), sizeBytes: info.size, lastModified: info.mtime });
      }
      return objects.sort((a, b) => a.key.localeCompare(b.key));
    },
    read: async (key) => readFile(path.join(root, key)),
    delete: async (key) => rm(path.join(root, key)),
  };
}
