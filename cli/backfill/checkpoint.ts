/**
 * The checkpoint of a backfill: the job (absolute window, log groups, stream) and, per log group, where the next
 * read starts. Written after every FilterLogEvents page whose envelopes Kinesis has taken (or that were kept), so a
 * run that stops anywhere resumes at the last such page: it never reads more than that one page again.
 *
 * Where it resumes is a timestamp, not FilterLogEvents' nextToken: the API answers in timestamp order, and a token
 * is only good for the session that got it (an unknown token reads as an empty, final page: the rest of the group
 * would silently be skipped). The events of that millisecond that were already written are listed by id and
 * skipped when read again.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { CheckpointError, parseCheckpoint } from '../../core/backfill/checkpoint-read';
import type { CheckpointState } from '../../core/backfill/model';

// Reading one back, and its errors, are core/backfill/checkpoint-read.ts'; its shape is core/backfill/model.ts'.

/** Where checkpoints live: a file, or memory in tests. */
export interface CheckpointStore {
  readonly location: string;
  load(): Promise<CheckpointState | undefined>;
  save(state: CheckpointState): Promise<void>;
}

export function fileCheckpointStore(file: string): CheckpointStore {
  return {
    location: file,
    async load() {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new CheckpointError(
          `backfill: cannot read the checkpoint ${file} (${(error as Error).message}): pass a --state-dir you can ` +
            'write to',
          { cause: error },
        );
      }
      return parseCheckpoint(text, file);
    },
    async save(state) {
      try {
        await mkdir(path.dirname(file), { recursive: true });
        // Written aside and renamed over the old one: a run killed while writing leaves the previous checkpoint.
        const aside = `${file}.${process.pid}.tmp`;
        await writeFile(aside, `${JSON.stringify(serialize(state), null, 1)}\n`);
        await rename(aside, file);
      } catch (error) {
        throw new CheckpointError(
          `backfill: cannot write the checkpoint ${file} (${(error as Error).message}): pass a --state-dir you can ` +
            'write to',
          { cause: error },
        );
      }
    },
  };
}

function serialize(state: CheckpointState): unknown {
  return {
    ...state,
    job: { ...state.job, since: state.job.since.toISOString(), until: state.job.until.toISOString() },
  };
}
