/**
 * One kept place read from several (issue 41, item 5): `npm start` keeps the Firehose stand-in's failed documents in
 * its work folder, and the direct path's indexer (the shipped handler) puts its refusals into moto's bucket, as it
 * does in AWS. Reconcile and replay read one place per kind; this one lists every place's objects under its own
 * prefix, so a document kept in either is counted as kept, and reads or deletes each object where it lives.
 */
import type { KeptPlace } from './collect';
import type { ObjectStore, StoredObject } from './ports';

/** Separates a place's index from its own key in the union's handle (never in an S3 key or a path kfek writes). */
const SEPARATOR = '\u0000';

/** The union of `places` (the first is listed first); a single place is returned as it is. */
export function unionPlace(places: readonly KeptPlace[]): KeptPlace {
  if (places.length === 1) return places[0];
  const split = (key: string): { place: KeptPlace; key: string } => {
    const at = key.indexOf(SEPARATOR);
    return { place: places[Number(key.slice(0, at))], key: key.slice(at + 1) };
  };
  const store: ObjectStore = {
    locationOf(key) {
      const inner = split(key);
      return inner.place.store.locationOf(inner.key);
    },
    async list(): Promise<StoredObject[]> {
      const all: StoredObject[] = [];
      for (const [i, place] of places.entries()) {
        for (const object of await place.store.list(place.prefix)) {
          all.push({ ...object, key: `${i}${SEPARATOR}${object.key}` });
        }
      }
      return all;
    },
    async read(key) {
      const inner = split(key);
      return inner.place.store.read(inner.key);
    },
    async delete(key) {
      const inner = split(key);
      await inner.place.store.delete(inner.key);
    },
  };
  return { store, prefix: '' };
}
