/**
 * An independent model of the document schema (docs/schema.md) for tests: builds the document of one event as an
 * object, field by field, the plain way (the transform writes text, core/transform/document.ts). Tests compare the
 * transform's text, parsed, with `JSON.parse(JSON.stringify(referenceDocument(...)))`: same fields, same values,
 * same key order. Numbers are compared in JavaScript's form; their written form is checked separately.
 */
import { COLLISIONS_KEY, collidesWithOurs } from '../../core/transform/collisions';
import type { CloudWatchLogEvent } from '../../core/transform/decode';
import {
  isLambdaLogGroup,
  toCloudWatchMetadata,
  type DocumentOptions,
  type EventSource,
} from '../../core/transform/document';
import { parseMessage } from '../../core/transform/parsers';
import type { LogDocument } from '../../core/transform/types';
import { OVERFLOW_KEY, planAppFields } from '../../core/contracts/field-budget';

export function referenceDocument(
  event: CloudWatchLogEvent,
  source: EventSource,
  options: DocumentOptions = {},
): LogDocument {
  const parsed = parseMessage(event.message, isLambdaLogGroup(source.logGroup));
  const doc: Record<string, unknown> = {
    '@timestamp': new Date(event.timestamp).toISOString(),
    message: parsed.message,
    cloudwatch: toCloudWatchMetadata(event, source, options.sourceRegions),
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
    const overflowKeys = planAppFields(
      app,
      (key) => !(skipMessage && key === 'message') && !collidesWithOurs(key, derived),
    ).overflow;
    let collisions: Record<string, unknown> | undefined;
    let overflow: Record<string, unknown> | undefined;
    for (const key of Object.keys(app)) {
      if (skipMessage && key === 'message') continue;
      const value = app[key];
      if (collidesWithOurs(key, derived)) setOwn((collisions ??= {}), key, value);
      else if (overflowKeys?.has(key) === true) setOwn((overflow ??= {}), key, value);
      else setOwn(doc, key, value);
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

/** `JSON.parse(JSON.stringify(referenceDocument(...)))`: the reference as a parse of its text. */
export function referenceParsed(
  event: CloudWatchLogEvent,
  source: EventSource,
  options: DocumentOptions = {},
): unknown {
  return JSON.parse(JSON.stringify(referenceDocument(event, source, options)));
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
