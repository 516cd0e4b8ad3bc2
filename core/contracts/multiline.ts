/**
 * Which lines continue the event before them (a route's `processing.multiline`, docs/teams-and-routes.md "Multi-line
 * events"): one owner for the transform, which joins them (core/transform/multiline.ts), and for backfill, which
 * must not end an envelope inside a trace that the live subscription delivered whole (core/logs/envelopes.ts).
 * Pure: no SDK, no I/O.
 */
import { compileRoutePattern } from './route-pattern';
import type { MultilineSettings } from './routes';

/** Removes exactly one trailing newline (`\n` or `\r\n`): loggers end lines with one; more is content. */
export function stripOneNewline(text: string): string {
  if (text.charCodeAt(text.length - 1) !== 0x0a) return text;
  return text.charCodeAt(text.length - 2) === 0x0d ? text.slice(0, -2) : text.slice(0, -1);
}

/**
 * A continuation rule: each call gives a fresh decider, asked about every line of one sequence (one log stream of one
 * account and route) in order, the first too, since a rule may keep state (a Python traceback is a block).
 */
export type Continuation = () => (line: string) => boolean;

const JAVA = /^(?:\s+at\s|\s*Caused by:|\s*\.\.\. \d+ (?:more|common frames omitted)|\s*Suppressed:)/;
const PYTHON_CHAINING =
  /^(?:During handling of the above exception|The above exception was the direct cause)/;
/** The exception line that ends a traceback: `ValueError: bad`, `KeyboardInterrupt`, `mod.Error`. */
const PYTHON_EXCEPTION = /^[A-Za-z_][\w.]*(?::|$)/;

function java(): (line: string) => boolean {
  return (line) => JAVA.test(line);
}

/** A Python traceback: its header, every indented line, the chaining lines, and the `Type: message` line that ends it. */
function python(): (line: string) => boolean {
  let inTraceback = false;
  return (raw) => {
    // Loggers end a line with a newline; `$` in JavaScript does not match before one.
    const line = stripOneNewline(raw);
    if (line.startsWith('Traceback (most recent call last):')) {
      inTraceback = true;
      return true;
    }
    if (!inTraceback) return false;
    if (/^\s/.test(line) || line.trim() === '') return true;
    if (PYTHON_CHAINING.test(line)) return true;
    // The exception line ends the block.
    inTraceback = false;
    return PYTHON_EXCEPTION.test(line);
  };
}

/** The continuation rule of a route's settings, compiled once per container. */
export function createContinuation(settings: MultilineSettings): Continuation {
  switch (settings.mode) {
    case 'java':
      return java;
    case 'python':
      return python;
    case 'pattern': {
      const pattern = compileRoutePattern(settings.pattern);
      return () => (line) => pattern.test(stripOneNewline(line));
    }
  }
}
