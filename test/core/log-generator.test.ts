import fc from 'fast-check';
import { parseMessage } from '../../core/transform/parsers';
import {
  InvalidGeneratorOptionError,
  LogEventGenerator,
  generateEvents,
  newRunId,
  parseRunMarker,
  runMarker,
} from '../../core/log-generator';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);

describe('generateEvents', () => {
  const events = generateEvents(2000, { runId: 'run-test', seed: 7 }, (i) => T0 + i);

  test('numbers the events 0..n-1 and marks each with the run', () => {
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    for (const event of events) {
      expect(parseRunMarker(event.message)).toEqual({ runId: 'run-test', seq: event.seq });
    }
  });

  test('mixes the three layouts and includes ERRORs', () => {
    const kinds = new Set(events.map((e) => e.kind));
    expect(kinds).toEqual(new Set(['app-json', 'lambda-platform', 'log4j']));
    const appEvents = events.filter((e) => e.kind !== 'lambda-platform');
    const errorShare = appEvents.filter((e) => e.level === 'ERROR').length / appEvents.length;
    expect(errorShare).toBeGreaterThan(0.05);
    expect(errorShare).toBeLessThan(0.15);
  });

  test('is reproducible from the seed and differs across seeds', () => {
    const again = generateEvents(50, { runId: 'run-test', seed: 7 }, (i) => T0 + i);
    expect(again).toEqual(events.slice(0, 50));
    const other = generateEvents(50, { runId: 'run-test', seed: 8 }, (i) => T0 + i);
    expect(other.map((e) => e.message)).not.toEqual(again.map((e) => e.message));
  });

  test('every line is one the transform parses into the intended layout, with the marker in `message`', () => {
    // The transform's own parser (core/transform/parsers) decides what reaches OpenSearch.
    const parsed = events.map((event) => ({ event, parsed: parseMessage(event.message) }));
    for (const { event, parsed: p } of parsed) {
      expect(parseRunMarker(p.message)).toEqual({ runId: 'run-test', seq: event.seq });
    }
    for (const { event, parsed: p } of parsed.filter((x) => x.event.kind === 'app-json')) {
      expect(p.appFields).toEqual(expect.objectContaining({ level: event.level, kfek_run: 'run-test' }));
    }
    for (const { event, parsed: p } of parsed.filter((x) => x.event.kind === 'log4j')) {
      expect(p.derived).toEqual(expect.objectContaining({ level: event.level }));
    }
    for (const { parsed: p } of parsed.filter((x) => x.event.kind === 'lambda-platform')) {
      expect(p.derived?.lambda?.type).toMatch(/^platform\.(start|end|report)$/);
    }
  });

  test('writes platform lines as START, END, REPORT of one request, with cold starts', () => {
    const platform = events.filter((e) => e.kind === 'lambda-platform').map((e) => parseMessage(e.message));
    const types = platform.map((p) => p.derived?.lambda?.type);
    for (let i = 0; i + 2 < types.length; i += 3) {
      expect(types.slice(i, i + 3)).toEqual(['platform.start', 'platform.end', 'platform.report']);
      const ids = platform.slice(i, i + 3).map((p) => p.derived?.lambda?.requestId);
      expect(new Set(ids).size).toBe(1);
    }
    expect(platform.some((p) => p.derived?.lambda?.initDurationMs !== undefined)).toBe(true);
  });

  test('stamps events with the given timestamps', () => {
    expect(events.map((e) => e.timestamp)).toEqual(events.map((_, i) => T0 + i));
  });
});

describe('run markers', () => {
  test('round-trip for every valid run id and sequence number', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), fc.nat(), (runId, seq) => {
        expect(parseRunMarker(`text ${runMarker(runId, seq)} more`)).toEqual({ runId, seq });
      }),
    );
  });

  test('newRunId makes valid, distinct ids', () => {
    const a = newRunId(T0, () => 0.1);
    const b = newRunId(T0, () => 0.2);
    expect(a).toMatch(/^run-[a-z0-9]+-[a-z0-9]{4}$/);
    expect(a).not.toBe(b);
    expect(() => new LogEventGenerator({ runId: a })).not.toThrow();
  });

  test('fails when the run id cannot be searched for', () => {
    expect(() => new LogEventGenerator({ runId: 'has space' })).toThrow(InvalidGeneratorOptionError);
    expect(() => new LogEventGenerator({ runId: 'x'.repeat(65) })).toThrow(/1-64 letters/);
  });

  test('fails when the options make no events', () => {
    expect(() => new LogEventGenerator({ runId: 'r', errorRatio: 2 })).toThrow(/errorRatio is 2/);
    expect(
      () => new LogEventGenerator({ runId: 'r', mix: { 'app-json': 0, 'lambda-platform': 0, log4j: 0 } }),
    ).toThrow(/positive finite weight/);
  });
});
