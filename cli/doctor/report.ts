/**
 * The doctor's output: a list a person reads top to bottom (status, check, finding, and the fix under it), or
 * JSON for machines. Pure.
 */
import type { Finding, Status } from './model';

const LABEL: Readonly<Record<Status, string>> = { ok: 'ok', warn: 'WARN', fail: 'FAIL', skip: 'skip' };

/** Exit code of the command: 1 when any check failed, else 0 (warnings do not fail it). */
export function exitCodeOf(findings: readonly Finding[]): number {
  return findings.some((f) => f.status === 'fail') ? 1 : 0;
}

export function formatFindings(profile: string, findings: readonly Finding[]): string {
  const width = Math.max(...findings.map((f) => f.check.length));
  const indent = ' '.repeat(4 + 2 + width + 2);
  const lines = [`kfek doctor: profile ${profile}`, ''];
  for (const f of findings) {
    lines.push(`${LABEL[f.status].padEnd(4)}  ${f.check.padEnd(width)}  ${f.finding}`);
    if (f.fix !== undefined && f.status !== 'ok') lines.push(`${indent}fix: ${f.fix}`);
  }
  const count = (s: Status): number => findings.filter((f) => f.status === s).length;
  lines.push(
    '',
    `${count('fail')} failed, ${count('warn')} warnings, ${count('ok')} ok, ${count('skip')} skipped`,
  );
  return lines.join('\n');
}
