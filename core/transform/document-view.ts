/**
 * An event's document as it will be indexed, for the drop rules (drop-rules.ts): the value at a path is read where the
 * document will have it. kfek's own fields (`message`, `@timestamp`, `cloudwatch.*`, `kfek.route`), the fields a text
 * prefix or a Lambda platform line derived (`level`, `thread`, `logger`, `lambda.*`) and the route's static fields win
 * over the app's, exactly as in the document (an app field that addresses one of them is under `kfek.collisions`
 * there, and not at its path); every other path is the app's, found nested or dotted. Pure: no SDK, no I/O.
 */
import { ROUTE_KEY } from '../contracts/routes';
import { type DropSubject, pathValues } from './drop-rules';
import type { DerivedFields } from './parsers';
import type { CloudWatchMetadata } from './types';

/** What the document of one event is made of, as far as a drop rule can ask. */
export interface DocumentParts {
  readonly message: string;
  readonly timestamp: () => string;
  readonly cloudwatch: () => CloudWatchMetadata;
  readonly derived?: DerivedFields;
  /** The route's name, written as `kfek.route`. */
  readonly routeName?: string;
  /** The route's static fields, by their (possibly dotted) names. */
  readonly staticFields?: Readonly<Record<string, string>>;
  /** The app's fields, when the message was a JSON object. */
  readonly app?: Readonly<Record<string, unknown>>;
  /** True when a top-level app key stays at its path in the document (it collides with nothing of ours). */
  readonly keeps: (key: string) => boolean;
}

const DERIVED: ReadonlySet<string> = new Set(['level', 'thread', 'logger', 'lambda']);

/** True when one of two dotted paths is the other or a path under it. */
function overlaps(a: string, b: string): boolean {
  const short = a.length <= b.length ? a : b;
  const long = short === a ? b : a;
  return long.startsWith(short) && (long.length === short.length || long.charCodeAt(short.length) === 0x2e);
}

/** The drop rules' view of the document made of `parts`. */
export function documentSubject(parts: DocumentParts): DropSubject {
  return {
    message: parts.message,
    values(path: string): readonly unknown[] {
      const segments = path.split('.');
      const first = segments[0];
      const out: unknown[] = [];
      if (first === 'message') return segments.length === 1 ? [parts.message] : out;
      if (first === '@timestamp') return segments.length === 1 ? [parts.timestamp()] : out;
      if (first === 'cloudwatch') {
        pathValues(parts.cloudwatch(), segments, 1, out);
        return out;
      }
      if (first === 'kfek') {
        if (parts.routeName !== undefined) pathValues({ [ROUTE_KEY]: parts.routeName }, segments, 1, out);
        return out;
      }
      const derived = parts.derived;
      if (
        derived !== undefined &&
        DERIVED.has(first) &&
        derived[first as keyof DerivedFields] !== undefined
      ) {
        pathValues(derived, segments, 0, out);
        return out;
      }
      for (const [name, value] of Object.entries(parts.staticFields ?? {})) {
        if (name === path) return [value];
        if (overlaps(name, path)) return out;
      }
      const app = parts.app;
      if (app === undefined) return out;
      // Top-level keys as the document keeps them; below them, any split of the path.
      pathValues(app, segments, 0, out, parts.keeps);
      return out;
    },
  };
}
