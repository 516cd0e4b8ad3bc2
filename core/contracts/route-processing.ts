/**
 * Reads a route's `processing` (masking, drop rules, multi-line join) from JSON; see route-reader.ts. Only checked
 * here: the transform (lambda/transform) does the processing.
 */
import { compileRoutePattern } from './route-pattern';
import { maskPatternProblem } from './route-pattern-mask';
import { FIELD_PATH, type Json, NAME, NAME_HINT, Problems } from './route-problems';
import {
  type CustomMask,
  type DropRule,
  MASK_DETECTORS,
  type MaskDetector,
  type MaskSettings,
  MULTILINE_MODES,
  type MultilineMode,
  type MultilineSettings,
  type RouteProcessing,
} from './routes';

function readMask(p: Problems, path: string, value: Json): MaskSettings | undefined {
  const obj = p.object(path, value, 'an object { "detectors": [...], "custom": [{ "name", "pattern" }] }');
  if (obj === undefined) return undefined;
  p.keys(path, obj, ['detectors', 'custom']);
  const detectorHint = `a list of ${MASK_DETECTORS.map((d) => JSON.stringify(d)).join(', ')}`;
  const detectors = (
    obj.detectors === undefined ? [] : (p.array(`${path}.detectors`, obj.detectors, detectorHint) ?? [])
  )
    .map((d, i) => {
      if (typeof d === 'string' && (MASK_DETECTORS as readonly string[]).includes(d))
        return d as MaskDetector;
      p.bad(
        `${path}.detectors[${i}]`,
        d,
        `one of ${MASK_DETECTORS.map((m) => JSON.stringify(m)).join(', ')}`,
      );
      return undefined;
    })
    .filter((d): d is MaskDetector => d !== undefined);
  p.unique(`${path}.detectors`, detectors, 'detector');
  const customHint = 'a list of { "name": "...", "pattern": "..." }';
  const custom = (obj.custom === undefined ? [] : (p.array(`${path}.custom`, obj.custom, customHint) ?? []))
    .map((entry, i): CustomMask | undefined => {
      const at = `${path}.custom[${i}]`;
      const c = p.object(at, entry, '{ "name": "...", "pattern": "..." }');
      if (c === undefined) return undefined;
      p.keys(at, c, ['name', 'pattern']);
      const name = p.str(`${at}.name`, c.name, NAME, NAME_HINT);
      if (name !== undefined && (MASK_DETECTORS as readonly string[]).includes(name)) {
        p.add(
          `${at}.name ${JSON.stringify(name)} is a built-in detector's name; list it in "detectors" or rename it.`,
        );
      }
      const pattern = p.pattern(`${at}.pattern`, c.pattern, true);
      const tooShort =
        name === undefined || pattern === undefined
          ? undefined
          : maskPatternProblem(name, compileRoutePattern(pattern));
      if (tooShort !== undefined) {
        p.add(`${at}.pattern is ${JSON.stringify(pattern)}, which a mask cannot use: ${tooShort}.`);
        return undefined;
      }
      return name === undefined || pattern === undefined ? undefined : { name, pattern };
    })
    .filter((c): c is CustomMask => c !== undefined);
  p.unique(
    `${path}.custom`,
    custom.map((c) => c.name),
    'name',
  );
  const none = (v: Json): boolean => v === undefined || (Array.isArray(v) && v.length === 0);
  if (none(obj.detectors) && none(obj.custom)) {
    p.add(
      `${path} lists no detector and no custom pattern, so it masks nothing; list some or remove "mask".`,
    );
  }
  return { detectors, custom };
}

function readDrop(p: Problems, path: string, value: Json): DropRule[] {
  const list = p.array(
    path,
    value,
    'a list of { "name", "messagePattern" } or { "name", "field", "fieldPattern" }',
  );
  const rules = (list ?? []).map((entry, i): DropRule | undefined => {
    const at = `${path}[${i}]`;
    const rule = p.object(
      at,
      entry,
      '{ "name": "...", "messagePattern": "..." } or { "name", "field", "fieldPattern" }',
    );
    if (rule === undefined) return undefined;
    p.keys(at, rule, ['name', 'messagePattern', 'field', 'fieldPattern']);
    const name = p.str(`${at}.name`, rule.name, NAME, NAME_HINT);
    if (rule.messagePattern === undefined && rule.field === undefined && rule.fieldPattern === undefined) {
      p.add(`${at} has no condition; give "messagePattern", or "field" with "fieldPattern", or both.`);
    }
    if ((rule.field === undefined) !== (rule.fieldPattern === undefined)) {
      p.add(
        `${at} gives ${rule.field === undefined ? '"fieldPattern" without "field"' : '"field" without "fieldPattern"'}; give both.`,
      );
    }
    const messagePattern =
      rule.messagePattern === undefined
        ? undefined
        : p.pattern(`${at}.messagePattern`, rule.messagePattern, false);
    const field =
      rule.field === undefined
        ? undefined
        : p.str(`${at}.field`, rule.field, FIELD_PATH, 'a field path such as "level" or "http.path"');
    const fieldPattern =
      rule.fieldPattern === undefined ? undefined : p.pattern(`${at}.fieldPattern`, rule.fieldPattern, false);
    if (name === undefined) return undefined;
    if (field !== undefined && fieldPattern !== undefined) {
      return { name, ...(messagePattern === undefined ? {} : { messagePattern }), field, fieldPattern };
    }
    // A rule missing a half of its field condition was reported above; one with only a message pattern is whole.
    if (field !== undefined || fieldPattern !== undefined || messagePattern === undefined) return undefined;
    return { name, messagePattern };
  });
  const kept = rules.filter((r): r is DropRule => r !== undefined);
  p.unique(
    path,
    rules.map((r) => r?.name),
    'name',
  );
  return kept;
}

function readMultiline(p: Problems, path: string, value: Json): MultilineSettings | undefined {
  const obj = p.object(path, value, '{ "mode": "java" | "python" | "pattern", "pattern"?: "..." }');
  if (obj === undefined) return undefined;
  p.keys(path, obj, ['mode', 'pattern']);
  const mode = (MULTILINE_MODES as readonly Json[]).includes(obj.mode)
    ? (obj.mode as MultilineMode)
    : undefined;
  if (mode === undefined) {
    p.bad(`${path}.mode`, obj.mode, `one of ${MULTILINE_MODES.map((m) => JSON.stringify(m)).join(', ')}`);
    return undefined;
  }
  if (mode !== 'pattern') {
    if (obj.pattern !== undefined) {
      p.add(`${path}.pattern is set but mode is ${JSON.stringify(mode)}; remove it, or use mode "pattern".`);
    }
    return { mode };
  }
  if (obj.pattern === undefined) {
    p.add(
      `${path}.mode is "pattern" but no "pattern" is given: set the regular expression continuation lines match.`,
    );
    return undefined;
  }
  const pattern = p.pattern(`${path}.pattern`, obj.pattern, true);
  return pattern === undefined ? undefined : { mode, pattern };
}

export function readProcessing(p: Problems, path: string, value: Json): RouteProcessing {
  const obj = p.object(path, value, 'an object with "mask", "drop" and/or "multiline"');
  if (obj === undefined) return { drop: [] };
  p.keys(path, obj, ['mask', 'drop', 'multiline']);
  const mask = obj.mask === undefined ? undefined : readMask(p, `${path}.mask`, obj.mask);
  const multiline =
    obj.multiline === undefined ? undefined : readMultiline(p, `${path}.multiline`, obj.multiline);
  return {
    ...(mask === undefined ? {} : { mask }),
    drop: obj.drop === undefined ? [] : readDrop(p, `${path}.drop`, obj.drop),
    ...(multiline === undefined ? {} : { multiline }),
  };
}
