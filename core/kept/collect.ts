/** Lists everything kfek keeps, kind by kind, as {@link KeptItem}s (plus what could not be read). */
import { KeptParseError } from './errors';
import type { KeptContainer, KeptItem, KeptKind, KeptProblem } from './model';
import { parseDeadLetter, parseDiscardedBatch, parseFailedDocuments } from './parse';
import type { MessageQueue, ObjectStore, StoredObject } from './ports';

/** Where one kind is kept: a bucket or folder, and the key prefix (sub-folder) under it. */
export interface KeptPlace {
  readonly store: ObjectStore;
  /**
   * Dead letters: config `transform.deadLetterPrefix` (`dead-letter/transform/`); discarded batches: `aws/lambda/`,
   * chosen by Lambda; failed documents: config `delivery.failedDocumentsPrefix` (`failed-documents/`).
   */
  readonly prefix: string;
}

export interface KeptSources {
  /** @default - none read */
  readonly deadLetter?: KeptPlace;
  /** @default - none read */
  readonly discardedBatches?: KeptPlace;
  /** @default - none read */
  readonly failedDocuments?: KeptPlace;
  /** The pipe's dead-letter queue. @default - none read */
  readonly queue?: MessageQueue;
  /** Most queue messages to look at. */
  readonly maxMessages: number;
}

/** The bucket or folder an item of `kind` came from, or the queue. */
export function ownerOf(sources: KeptSources, kind: KeptKind): ObjectStore | MessageQueue | undefined {
  switch (kind) {
    case 'dead-letter':
      return sources.deadLetter?.store;
    case 'discarded-batch':
      return sources.discardedBatches?.store;
    case 'failed-document':
      return sources.failedDocuments?.store;
    case 'pipes-dlq':
      return sources.queue;
  }
}

export interface Collected {
  readonly items: readonly KeptItem[];
  readonly problems: readonly KeptProblem[];
}

export async function collectKept(sources: KeptSources, kinds: readonly KeptKind[]): Promise<Collected> {
  const items: KeptItem[] = [];
  const problems: KeptProblem[] = [];
  const keep = (read: () => KeptItem | KeptItem[]): void => {
    try {
      const got = read();
      items.push(...(Array.isArray(got) ? got : [got]));
    } catch (error) {
      if (!(error instanceof KeptParseError)) throw error;
      problems.push({ location: error.location, message: error.message });
    }
  };
  const objects = async (
    place: KeptPlace | undefined,
    each: (bytes: Uint8Array, container: KeptContainer, object: StoredObject) => void,
  ): Promise<void> => {
    if (place === undefined) return;
    const { store, prefix } = place;
    for (const object of await store.list(prefix)) {
      const container = {
        location: store.locationOf(object.key),
        handle: object.key,
        sizeBytes: object.sizeBytes,
      };
      each(await store.read(object.key), container, object);
    }
  };
  if (kinds.includes('dead-letter')) {
    await objects(sources.deadLetter, (bytes, container) => keep(() => parseDeadLetter(bytes, container)));
  }
  if (kinds.includes('discarded-batch')) {
    await objects(sources.discardedBatches, (bytes, container, object) =>
      keep(() => parseDiscardedBatch(bytes, container, 'discarded-batch', object.lastModified)),
    );
  }
  if (kinds.includes('failed-document')) {
    await objects(sources.failedDocuments, (bytes, container) =>
      keep(() => {
        const parsed = parseFailedDocuments(bytes, container);
        problems.push(...parsed.problems.map((p) => ({ location: p.location, message: p.message })));
        return parsed.items;
      }),
    );
  }
  if (kinds.includes('pipes-dlq') && sources.queue !== undefined) {
    const queue = sources.queue;
    for (const message of await queue.peekAll(sources.maxMessages)) {
      const container = {
        location: `${queue.location} message ${message.messageId}`,
        handle: message.receiptHandle,
        sizeBytes: Buffer.byteLength(message.body, 'utf8'),
      };
      keep(() =>
        parseDiscardedBatch(Buffer.from(message.body, 'utf8'), container, 'pipes-dlq', message.sentAt),
      );
    }
  }
  return { items, problems };
}
