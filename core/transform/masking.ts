/**
 * Masking for a route (docs/teams-and-routes.md "Masking"): personal data and secrets in an event's text are replaced
 * by a marker that says what was there, `[masked:email]`, before anything else reads the event, so the original never
 * reaches a document, an error document or a log line. Only the app's text is masked: kfek's own fields
 * (`cloudwatch.*`, ids, timestamps) come from the envelope, not from the text.
 *
 * Masking decides on what is stored, not on what was written: a JSON object message is masked value by value on the
 * decoded values (json-strings.ts), each with the name of its member, so `"carol\u0040example.org"` and
 * `{"SecretAccessKey": "..."}` nested anywhere are caught; any other message is masked as text. The cheap pre-check
 * (mask-detectors.ts `features`) reads escapes as the characters they stand for, so it skips only what it has proven
 * cannot match, and the result never depends on what else the route configures. Built-in detectors are bounded;
 * custom patterns run on RE2 (core/contracts/route-pattern.ts): no input makes masking slow or makes it throw.
 * Pure: no SDK, no I/O.
 */
import { compileRoutePattern, type RoutePattern } from '../contracts/route-pattern';
import { maskMarker } from '../contracts/route-pattern-mask';
import type { MaskSettings } from '../contracts/routes';
import { maskJsonStrings } from './json-strings';
import { withoutInvisible } from './invisible';
import { markerFinder, maskCustom } from './mask-custom';
import { BUILT_IN_DETECTORS, type Detector, F_INVISIBLE, features } from './mask-detectors';

export { features, luhnValid } from './mask-detectors';
export { maskMarker };

/** Told how many values a detector masked (the batch's accumulator counts them: processing.ts). */
export type MaskTally = (detector: string, n: number) => void;

/** A route's masking, compiled once per container. */
export class Masker {
  private readonly detectors: readonly Detector[];
  private readonly markers: readonly string[];
  private readonly featureMask: number;
  /** The custom patterns (no cheap check of their own), their names and markers. */
  private readonly custom: readonly RoutePattern[];
  private readonly customNames: readonly string[];
  private readonly customMarkers: readonly string[];
  /** Finds the built-in detectors' markers in a text (mask-custom.ts: custom patterns never match inside one). */
  private readonly builtInMarkers: RegExp | undefined;

  public constructor(settings: MaskSettings) {
    // Built-in detectors first: a custom pattern then sees their markers, not the values.
    this.detectors = settings.detectors.map((d) => BUILT_IN_DETECTORS[d]());
    this.markers = this.detectors.map((d) => maskMarker(d.name));
    this.custom = settings.custom.map((c) => compileRoutePattern(c.pattern));
    this.customNames = settings.custom.map((c) => c.name);
    this.customMarkers = this.customNames.map(maskMarker);
    this.builtInMarkers = markerFinder(this.markers);
    this.featureMask = this.detectors.reduce((bits, d) => bits | d.feature, 0);
  }

  /**
   * The text with every detected value replaced by its marker; undefined when nothing was masked. `key` is the name
   * of the JSON member the text is the value of, when it is one (without invisible format characters). `tally` is told what was masked. Invisible format
   * characters are removed first (invisible.ts), so they cannot split a secret; the text returned is that view, also
   * when nothing else was masked.
   */
  public mask(
    text: string,
    tally: MaskTally,
    key?: string,
    found: number = features(text),
  ): string | undefined {
    const invisible = (found & F_INVISIBLE) !== 0;
    const view = invisible ? withoutInvisible(text) : text;
    let out = view;
    for (let d = 0; d < this.detectors.length; d++) {
      const detector = this.detectors[d];
      // A marker adds no feature, so what the original text lacks the masked one lacks too.
      if (detector.feature !== 0 && (found & detector.feature) === 0) continue;
      out = detector.mask(out, this.markers[d], (n) => tally(detector.name, n), key);
    }
    if (this.custom.length > 0) {
      const builtIn = out === view ? undefined : this.builtInMarkers;
      out = maskCustom(out, this.custom, this.customMarkers, builtIn, (i, n) =>
        tally(this.customNames[i], n),
      );
    }
    return out === text ? undefined : out;
  }

  /**
   * True when some detector may find something in `text`, or in a string value of `text` read as JSON
   * (`jsonEscapes`): the cheap checks, and one linear-time search per custom pattern. Never false when a detector
   * would mask something.
   */
  public mayMatch(text: string, jsonEscapes: boolean, found = features(text, jsonEscapes)): boolean {
    if ((found & (this.featureMask | F_INVISIBLE)) !== 0) return true;
    if (this.custom.length === 0) return false;
    // A custom pattern's match inside one value is a match in the whole text when the value stands in it as it is
    // decoded (no backslash) and the pattern cannot be anchored to a value's start or end; else look value by value.
    if (jsonEscapes && text.includes('\\')) return true;
    return this.custom.some((pattern) => (jsonEscapes && pattern.anchored) || pattern.test(text));
  }
}

/**
 * An event's message with its values masked (module comment): a message that starts like a JSON object value by
 * value, any other as text. Undefined when nothing was masked. The caller parses the result; when a message that
 * starts like a JSON object turns out not to be one, it masks the original as text instead ({@link maskText}), so
 * nothing outside a string escapes the detectors.
 */
export function maskMessage(message: string, masker: Masker, tally: MaskTally): string | undefined {
  if (!looksLikeJsonObject(message)) return maskText(message, masker, tally);
  const found = features(message, true);
  if (!masker.mayMatch(message, true, found)) return undefined;
  // A member name is read without invisible format characters too (`Secret\u200bAccessKey` names a secret), and
  // only a message that holds one can have a name that does.
  const invisible = (found & F_INVISIBLE) !== 0;
  // Counted only once the scan is through: a string that is no JSON string makes it mask the text instead.
  const counted: Array<readonly [string, number]> = [];
  const result = maskJsonStrings(message, (value, key) =>
    masker.mask(
      value,
      (d, n) => counted.push([d, n]),
      invisible && key !== undefined ? withoutInvisible(key) : key,
    ),
  );
  if (result.kind === 'invalid') return maskText(message, masker, tally);
  for (const [detector, n] of counted) tally(detector, n);
  return result.kind === 'masked' ? result.text : undefined;
}

/** The message masked as text (not as JSON); undefined when nothing was masked. */
export function maskText(message: string, masker: Masker, tally: MaskTally): string | undefined {
  const found = features(message);
  return masker.mayMatch(message, false, found) ? masker.mask(message, tally, undefined, found) : undefined;
}

/** True when the text's first non-blank character is `{` (what parsers/ tries as JSON). */
export function looksLikeJsonObject(text: string): boolean {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) <= 0x20) i++;
  return text.charCodeAt(i) === 0x7b;
}
