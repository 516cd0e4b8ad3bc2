/**
 * How an app's JSON fields are laid out in its document (document.ts writes the rest): whether the fast path's
 * canonical copy of the app's text may stand as it is (no collision, within the field budget), and the general rules
 * member by member otherwise: a key that addresses one of kfek's fields, a derived field or a static field of the
 * route is kept under `kfek.collisions`; keys past the field budget (core/contracts/field-budget.ts) under
 * `kfek.overflow`. Pure: no SDK, no environment, no I/O.
 */
import {
  appMemberList,
  canonicalMembersText,
  isArrayIndex,
  type AppMember,
  type MembersText,
} from './app-json';
import {
  APP_FIELD_BUDGET,
  OVERFLOW_KEY,
  PATHS_NEEDED,
  planAppFields,
  quickFieldCost,
} from '../contracts/field-budget';
import { COLLISIONS_KEY, collidesWithOurs } from './collisions';
import type { ParsedMessage } from './parsers';
import type { DocumentRoute } from './routing';

/** The parts of a document the app's fields make (document.ts `Layout`). */
export interface AppLayout {
  readonly head: string;
  readonly message: string;
  readonly body: string;
  readonly kfek: string;
  readonly numbersAsWritten: boolean;
}

/** The app's members text as it stands, when it is already in the document's form (app-json.ts). */
export function canonicalText(parsed: ParsedMessage, app: Record<string, unknown>): MembersText | undefined {
  const text = parsed.appText;
  if (text === undefined || parsed.appTextClose === undefined) return undefined;
  return canonicalMembersText(text, parsed.appTextClose, app, parsed.messageFromApp === true);
}

/**
 * The general rules, member by member: an app key that collides with ours is kept under `kfek.collisions`; app keys
 * are mapped in order until one does not fit the field budget (core/contracts/field-budget.ts), and it and every
 * later key are kept under `kfek.overflow` (so is a key OpenSearch would refuse to map); collisions are moved aside
 * first and not counted. Keys JavaScript orders first (array indices) lead the document, as they lead its parse.
 */
export function generalLayout(
  parsed: ParsedMessage,
  app: Record<string, unknown>,
  timestamp: string,
  ours: string,
  rules: boolean,
  route: DocumentRoute | undefined,
): AppLayout {
  // Without `rules` (needsGeneralRules said so), nothing collides or overflows: only the text's form was not the
  // document's.
  const derived = parsed.derived;
  const skipMessage = parsed.messageFromApp === true;
  const overflowKeys = rules
    ? planAppFields(app, (key) => !(skipMessage && key === 'message') && !collides(key, derived, route))
        .overflow
    : undefined;
  const list = appMemberList(parsed.appText ?? JSON.stringify(app));
  let leading = '';
  let body = ours;
  const collisions: AppMember[] = [];
  const overflow: AppMember[] = [];
  for (const member of list.members) {
    const key = member.key;
    if (skipMessage && key === 'message') continue;
    // Checked on every member, not only when needsGeneralRules said so: a member's key here is decoded from the text
    // itself, while the parsed object's keys can be wrong on Node.js 24 (V8's JSON.parse may decode an escaped key
    // through a cached one: nodejs/node#63785), so a metadata name written with escapes must still be caught here.
    if (collides(key, derived, route)) {
      collisions.push(member);
    } else if (overflowKeys?.has(key) === true) {
      overflow.push(member);
    } else if (isArrayIndex(key)) {
      leading += `${member.json},`;
    } else {
      body += `,${member.json}`;
    }
  }
  if (route !== undefined) body += route.staticMembers;
  const kfek: string[] = route === undefined ? [] : [route.kfekMember];
  if (collisions.length > 0) kfek.push(`"${COLLISIONS_KEY}":${objectText(collisions)}`);
  if (overflow.length > 0) kfek.push(`"${OVERFLOW_KEY}":${objectText(overflow)}`);
  return {
    head: `{${leading}${timestamp}`,
    message: parsed.message,
    body,
    kfek: kfek.join(','),
    numbersAsWritten: list.numbersAsWritten,
  };
}

function objectText(members: readonly AppMember[]): string {
  return `{${members.map((m) => m.json).join(',')}}`;
}

/**
 * True when an app field would collide with one of ours, or the app fields do not all fit the field budget (or one
 * cannot be mapped at all), so the event needs the general layout. One pass without allocating for almost every
 * line; a line whose fields can share paths (a dotted key, an array of several objects) is planned with the paths.
 */
export function needsGeneralRules(parsed: ParsedMessage, route: DocumentRoute | undefined): boolean {
  const app = parsed.appFields;
  if (app === undefined) return false;
  const skipMessage = parsed.messageFromApp === true;
  let budget = APP_FIELD_BUDGET;
  let pathsNeeded = false;
  // for...in, not Object.keys: no array per event. A parsed JSON object has no inherited
  // enumerable keys, and `__proto__` is an own key there.
  for (const key in app) {
    if (skipMessage && key === 'message') continue;
    if (collides(key, parsed.derived, route)) return true;
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

/** True when an app key addresses a field kfek writes in this document: ours, a derived one, a static one. */
export function collides(
  key: string,
  derived: ParsedMessage['derived'],
  route: DocumentRoute | undefined,
): boolean {
  return collidesWithOurs(key, derived) || (route !== undefined && route.reserves(key));
}

function notMessage(key: string): boolean {
  return key !== 'message';
}
