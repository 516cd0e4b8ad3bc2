/** A local folder as an {@link ObjectStore}: what `npm start` keeps under `.kfek/local/` (docs/local.md). */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { LOCAL_KEPT_FOLDERS } from '../../core/contracts/kept-data';
import { UsageError } from '../errors';
import type { ObjectStore, StoredObject } from '../../core/kept/ports';

/** Key prefixes of each kind in `npm start`'s work folder (docs/local.md "Files"). */
export const LOCAL_LAYOUT = {
  deadLetter: `${LOCAL_KEPT_FOLDERS.deadLetter}/`,
  discardedBatches: `${LOCAL_KEPT_FOLDERS.onFailure}/`,
  failedDocuments: `${LOCAL_KEPT_FOLDERS.failedDocuments}/`,
} as const;

/**
 * Fails unless `root` is a folder: a mistyped `--local-dir` must not list as "nothing kept". (Its sub-folders may
 * be missing: `npm start` creates them when something is first kept.)
 */
export async function checkLocalFolder(root: string, given: string): Promise<void> {
  let info;
  try {
    info = await stat(root);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT'
        ? `replay: --local-dir ${given} does not exist (${root}): pass npm start's work folder (.kfek/local by ` +
            'default, or the folder npm start printed)'
        : `replay: cannot read --local-dir ${given} (${root}): ${(error as Error).message}`,
    );
  }
  if (!info.isDirectory()) {
    throw new UsageError(
      `replay: --local-dir ${given} (${root}) is not a folder: pass npm start's work folder`,
    );
  }
}

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
