/**
 * What Kinesis still refused after every retry is kept where `kfek replay --local` reads dead letters
 * (`<state dir>/dead-letter/`, core/contracts/kept-data.ts), as the transform's dead-letter object (version 1:
 * `reason`, `receivedAt`, `source` with the partition key, `data` base64), so
 * `kfek replay --local --local-dir <state dir> --kind dead-letter --raw-stream <stream>` puts it back unchanged.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { LOCAL_KEPT_FOLDERS } from '../../core/contracts/kept-data';
import type { EnvelopeRecord } from '../../core/logs/model';

export interface KeptStore {
  /** The folder `kfek replay --local-dir` is given. */
  readonly location: string;
  /** Keeps one record; answers where. */
  keep(record: EnvelopeRecord, reason: string, at: Date, rawStream: string): Promise<string>;
}

export function folderKeptStore(stateDir: string): KeptStore {
  return {
    location: stateDir,
    async keep(record, reason, at, rawStream) {
      // Named by the record's content: keeping the same envelope twice (a resumed run) overwrites one file.
      const file = path.join(
        stateDir,
        LOCAL_KEPT_FOLDERS.deadLetter,
        'backfill',
        `${record.partitionKey}.json`,
      );
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, `${JSON.stringify(keptObject(record, reason, at, rawStream))}\n`);
      return file;
    },
  };
}

/** The dead-letter object of lambda/transform/dead-letter-object.ts, with where the events came from. */
export function keptObject(record: EnvelopeRecord, reason: string, at: Date, rawStream: string): unknown {
  return {
    version: 1,
    reason,
    receivedAt: at.toISOString(),
    source: {
      // Never on the stream: no shard or sequence number. The partition key is the one it was refused with.
      eventId: '',
      sequenceNumber: '',
      shardId: '',
      partitionKey: record.partitionKey,
      streamArn: rawStream,
      approximateArrivalTimestamp: at.getTime() / 1000,
      approximateArrival: at.toISOString(),
    },
    backfill: {
      logGroup: record.logGroup,
      logStream: record.logStream,
      events: record.events,
      firstTimestamp: new Date(record.firstTimestamp).toISOString(),
      lastTimestamp: new Date(record.lastTimestamp).toISOString(),
    },
    data: Buffer.from(record.data).toString('base64'),
  };
}
