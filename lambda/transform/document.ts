/**
 * Shapes one CloudWatch log event into one document (the public schema, docs/schema.md).
 * Pure: no SDK, no environment, no I/O.
 */
import { appMembersText } from './app-json';
import { regionFromSubscriptionFilters } from '../../core/contracts/cross-account-naming';
import {
  APP_FIELD_BUDGET,
  OVERFLOW_KEY,
  PATHS_NEEDED,
  planAppFields,
  quickFieldCost,
} from '../../core/contracts/field-budget';
import { COLLISIONS_KEY, collidesWithOurs } from './collisions';
import { CloudWatchLogEvent } from './decode';
import { parseMessage, ParsedMessage } from './parsers';
import { CloudWatchMetadata, LogDocument } from './types';

/** Where the envelope-level metadata of an event comes from. */
export interface EventSource {
  readonly logGroup: string;
  readonly logStream: string;
  readonly owner: string;
  /**
   * The envelope's `subscriptionFilters`: a kfek source stack names its filter `<stem>@<region>`, which gives
   * `cloudwatch.region` when no `@aws.region` is extracted (core/contracts/cross-account-naming.ts).
   */
  readonly subscriptionFilters?: readonly string[];
}

export function toCloudWatchMetadata(event: CloudWatchLogEvent, source: EventSource): CloudWatchMetadata {
  const extracted = event.extractedFields;
  if (extracted === undefined) {
    const fromFilter = regionFromSubscriptionFilters(source.subscriptionFilters ?? []);
    return {
      id: event.id,
      logGroup: source.logGroup,
      logStream: source.logStream,
      owner: source.owner,
      ...(fromFilter === undefined ? {} : { region: fromFilter }),
    };
  }
  const account = extracted['@aws.account'];
  const extractedRegion = extracted['@aws.region'];
  const region =
    typeof extractedRegion === 'string'
      ? extractedRegion
      : regionFromSubscriptionFilters(source.subscriptionFilters ?? []);
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
  return buildDocument(event, source, parseMessage(event.message));
}

function buildDocument(event: CloudWatchLogEvent, source: EventSource, parsed: ParsedMessage): LogDocument {
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
    const skipMessage = parsed.messageFromApp === true;
    // The field budget (core/contracts/field-budget.ts): app keys are mapped in written order until one does not
    // fit; it and every later key are kept under kfek.overflow, so one wide document cannot fill the index, and so
    // is a key OpenSearch would refuse to map. Collisions are moved aside first and not counted.
    const overflowKeys = planAppFields(
      app,
      (key) => !(skipMessage && key === 'message') && !collidesWithOurs(key, derived),
    ).overflow;
    let collisions: Record<string, unknown> | undefined;
    let overflow: Record<string, unknown> | undefined;
    for (const key of Object.keys(app)) {
      if (skipMessage && key === 'message') continue;
      const value = app[key];
      if (collidesWithOurs(key, derived)) {
        setOwn((collisions ??= {}), key, value);
      } else if (overflowKeys?.has(key) === true) {
        setOwn((overflow ??= {}), key, value);
      } else {
        setOwn(doc, key, value);
      }
    }
    if (collisions !== undefined || overflow !== undefined) {
      doc.kfek = {
        ...(collisions === undefined ? {} : { [COLLISIONS_KEY]: collisions }),
        ...(overflow === undefined ? {} : { [OVERFLOW_KEY]: overflow }),
      };
    }
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

/**
 * Serializes the documents of one envelope straight to JSON text, the hot path of the transform.
 * `json(event)` writes a document that parses to the same value as `JSON.stringify(toDocument(event, source))`
 * (a property test holds it to that) but skips building a document object per event: the envelope's `cloudwatch`
 * fields are escaped once, a JSON message's members are copied from the app's own text where that text means
 * exactly the parsed object (app-json.ts; else the parsed object is stringified), and consecutive events with the
 * same timestamp share one ISO string. Only the form may differ from JSON.stringify's: app members keep their
 * written order, whitespace, escapes and number forms. Events that need the general rules (collisions, the field
 * budget, `extractedFields`) take the `toDocument` path.
 */
export class DocumentSerializer {
  private readonly cloudwatchTail: string;
  private lastSecond = Number.NaN;
  private secondPrefix = '';

  public constructor(private readonly source: EventSource) {
    const region = regionFromSubscriptionFilters(source.subscriptionFilters ?? []);
    this.cloudwatchTail =
      `,"logGroup":${JSON.stringify(source.logGroup)},"logStream":${JSON.stringify(source.logStream)}` +
      `,"owner":${JSON.stringify(source.owner)}${region === undefined ? '' : `,"region":${JSON.stringify(region)}`}}`;
  }

  public json(event: CloudWatchLogEvent): string {
    const parsed = parseMessage(event.message);
    if (event.extractedFields !== undefined || needsGeneralRules(parsed)) {
      return JSON.stringify(buildDocument(event, this.source, parsed));
    }
    let json =
      `{"@timestamp":"${this.iso(event.timestamp)}","message":${JSON.stringify(parsed.message)}` +
      `,"cloudwatch":{"id":${JSON.stringify(event.id)}${this.cloudwatchTail}`;
    const derived = parsed.derived;
    if (derived !== undefined) {
      if (derived.level !== undefined) json += `,"level":${JSON.stringify(derived.level)}`;
      if (derived.thread !== undefined) json += `,"thread":${JSON.stringify(derived.thread)}`;
      if (derived.logger !== undefined) json += `,"logger":${JSON.stringify(derived.logger)}`;
      if (derived.lambda !== undefined) json += `,"lambda":${JSON.stringify(derived.lambda)}`;
    }
    const app = parsed.appFields;
    if (app !== undefined) {
      const members = appMembers(parsed, app);
      if (members.length > 0) json += `,${members}`;
    }
    return `${json}}`;
  }

  /**
   * `new Date(timestamp).toISOString()`, formatted once per second: the events of one envelope
   * are usually within the same few seconds, and only the milliseconds differ.
   */
  private iso(timestamp: number): string {
    if (!Number.isInteger(timestamp)) return new Date(timestamp).toISOString();
    const millis = ((timestamp % 1000) + 1000) % 1000;
    const second = timestamp - millis;
    if (second !== this.lastSecond) {
      this.lastSecond = second;
      // Everything up to the milliseconds: `2026-11-23T09:00:00.` (or `+275760-...` years).
      this.secondPrefix = new Date(second).toISOString().slice(0, -4);
    }
    return `${this.secondPrefix}${MILLIS[millis]}Z`;
  }
}

/**
 * The app fields as JSON members without braces: the app's own text where it means exactly the parsed object
 * (app-json.ts), else the parsed object stringified.
 */
function appMembers(parsed: ParsedMessage, app: Record<string, unknown>): string {
  const dropMessage = parsed.messageFromApp === true;
  const text = parsed.appText;
  if (text !== undefined && parsed.appTextClose !== undefined) {
    const members = appMembersText(text, parsed.appTextClose, app, dropMessage);
    if (members !== undefined) return members;
  }
  // The parsed object is ours alone; an undefined value is left out by JSON.stringify, exactly
  // as buildDocument skips the `message` it already used.
  if (dropMessage) app.message = undefined;
  const fields = JSON.stringify(app);
  return fields.length > 2 ? fields.slice(1, -1) : '';
}

/** '000' to '999', so formatting milliseconds is one lookup. */
const MILLIS: readonly string[] = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/**
 * True when an app field would collide with one of ours, or the app fields do not all fit the field budget (or one
 * cannot be mapped at all), so the event needs `buildDocument`. One pass without allocating for almost every line;
 * a line whose fields can share paths (a dotted key, an array of several objects) is planned with the paths.
 */
function needsGeneralRules(parsed: ParsedMessage): boolean {
  const app = parsed.appFields;
  if (app === undefined) return false;
  const skipMessage = parsed.messageFromApp === true;
  let budget = APP_FIELD_BUDGET;
  let pathsNeeded = false;
  // for...in, not Object.keys: no array per event. A parsed JSON object has no inherited
  // enumerable keys, and `__proto__` is an own key there.
  for (const key in app) {
    if (skipMessage && key === 'message') continue;
    if (collidesWithOurs(key, parsed.derived)) return true;
    if (pathsNeeded) continue;
    const cost = quickFieldCost(key, app[key], budget);
    if (cost === PATHS_NEEDED) {
      pathsNeeded = true;
      continue;
    }
    budget -= cost;
    if (budget < 0) return true;
  }
  return pathsNeeded && planAppFields(app, skipMessage ? notMessage : undefined).overflow !== undefined;
}

function notMessage(key: string): boolean {
  return key !== 'message';
}
