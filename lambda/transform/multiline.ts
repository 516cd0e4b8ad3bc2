/**
 * Multi-line join of a route (issue 24, docs/teams-and-routes.md "Multi-line events"): an app that writes a stack
 * trace line by line sends one CloudWatch event per line; the continuation lines are joined into the event before
 * them, so one exception is one document. Only within one envelope (one log stream, in order): a trace that
 * CloudWatch splits over two envelopes stays two documents, and the second starts with a continuation line.
 * The joined event keeps the first event's id and timestamp, and counts the lines joined into it. Pure.
 */
import { compileRoutePattern, type MultilineSettings } from '../../core/contracts/routes';
import type { CloudWatchLogEvent } from './decode';
import { stripOneNewline } from './parsers';

/** An event after the join: `joined` lines were appended to it (0 when none). */
export interface JoinedEvent {
  readonly event: CloudWatchLogEvent;
  readonly joined: number;
}

/** Decides line by line, keeping what it needs to know between lines (a Python traceback is a block). */
export type Continuation = () => (line: string) => boolean;

const JAVA = /^(?:\s+at\s|\s*Caused by:|\s*\.\.\. \d+ (?:more|common frames omitted)|\s*Suppressed:)/;

function java(): (line: string) => boolean {
  return (line) => JAVA.test(line);
}

/** A Python traceback: its header, every indented line, the chaining lines, and the `Type: message` line that ends it. */
function python(): (line: string) => boolean {
  let inTraceback = false;
  return (line) => {
    if (line.startsWith('Traceback (most recent call last):')) {
      inTraceback = true;
      return true;
    }
    if (!inTraceback) return false;
    if (/^\s/.test(line) || line.trim() === '') return true;
    if (/^(?:During handling of the above exception|The above exception was the direct cause)/.test(line)) {
      return true;
    }
    // The exception line ends the block: `ValueError: bad`, `KeyboardInterrupt`.
    inTraceback = false;
    return /^[A-Za-z_][\w.]*(?::|$)/.test(line);
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
      const pattern = compileRoutePattern(settings.pattern ?? '');
      return () => (line) => pattern.test(line);
    }
  }
}

/** The events of one envelope with continuation lines joined into the event before them. */
export function joinContinuations(
  events: readonly CloudWatchLogEvent[],
  continuation: Continuation,
): JoinedEvent[] {
  const isContinuation = continuation();
  const out: Array<{ event: CloudWatchLogEvent; joined: number; lines: string[] }> = [];
  for (const event of events) {
    const last = out[out.length - 1];
    // Asked of every line, the first too: a rule may keep state (a traceback begins).
    const continues = isContinuation(event.message);
    if (last !== undefined && continues) {
      last.lines.push(stripOneNewline(event.message));
      last.joined++;
    } else {
      out.push({ event, joined: 0, lines: [stripOneNewline(event.message)] });
    }
  }
  return out.map(({ event, joined, lines }) =>
    joined === 0 ? { event, joined } : { event: { ...event, message: lines.join('\n') }, joined },
  );
}
