/**
 * Shapes one CloudWatch log event into one document (the public schema, see docs/schema.md).
 * Pure: no SDK, no environment, no I/O.
 */
import { CloudWatchLogEvent } from './decode';
import { parseMessage } from './parsers';
import { CloudWatchMetadata, LogDocument } from './types';

/** Where the envelope-level metadata of an event comes from. */
export interface EventSource {
  readonly logGroup: string;
  readonly logStream: string;
  readonly owner: string;
}

/**
 * Key under `kfek` that holds app fields whose names collide with a field kfek owns
 * (`@timestamp`, `cloudwatch`, `kfek`, a non-string `message`, or a derived field such as `lambda`).
 * They are kept there, under their own name, rather than dropped or allowed to overwrite ours.
 */
export const COLLISIONS_KEY = 'collisions';

export function toCloudWatchMetadata(event: CloudWatchLogEvent, source: EventSource): CloudWatchMetadata {
  const extracted = event.extractedFields;
  if (extracted === undefined) {
    return { id: event.id, logGroup: source.logGroup, logStream: source.logStream, owner: source.owner };
  }
  const account = extracted['@aws.account'];
  const region = extracted['@aws.region'];
  return {
    id: event.id,
    logGroup: source.logGroup,
    logStream: source.logStream,
    owner: source.owner,
    ...(typeof account === 'string' ? { account } : {}),
    ...(typeof region === 'string' ? { region } : {}),
  };
}

/** Builds the document for one event. Never throws for any message text. */
export function toDocument(event: CloudWatchLogEvent, source: EventSource): LogDocument {
  const parsed = parseMessage(event.message);
  const doc: Record<string, unknown> = {
    '@timestamp': new Date(event.timestamp).toISOString(),
    message: parsed.message,
    cloudwatch: toCloudWatchMetadata(event, source),
  };
  const derived = parsed.derived;
  if (derived !== undefined) {
    if (derived.level !== undefined) doc.level = derived.level;
    if (derived.thread !== undefined) doc.thread = derived.thread;
    if (derived.logger !== undefined) doc.logger = derived.logger;
    if (derived.lambda !== undefined) doc.lambda = derived.lambda;
  }
  const app = parsed.appFields;
  if (app !== undefined) {
    let collisions: Record<string, unknown> | undefined;
    for (const key of Object.keys(app)) {
      if (key === 'message' && parsed.messageFromApp) continue;
      const value = app[key];
      if (key === 'kfek' || Object.hasOwn(doc, key)) {
        collisions ??= {};
        setOwn(collisions, key, value);
      } else {
        setOwn(doc, key, value);
      }
    }
    if (collisions !== undefined) doc.kfek = { [COLLISIONS_KEY]: collisions };
  }
  return doc as unknown as LogDocument;
}

/**
 * Assigns an own property. A JSON text can carry a `__proto__` key, which plain assignment would
 * turn into a prototype change (and lose the value) instead of a field.
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
