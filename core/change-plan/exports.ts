/**
 * Deploys the stacks one after another on paper and finds the updates CloudFormation refuses because of
 * cross-stack exports: an export that another stack imports cannot be removed or change its value ("Cannot delete
 * export ... as it is in use by ...", CDK's "deadly embrace", aws/aws-cdk#7602), and an import needs its export to
 * exist. At every step a stack holds the template it has at that moment: its new one once it deployed, its deployed
 * one before (and after a refused update, which CloudFormation rolls back).
 */
import { canonicalJson } from '../canonical-json';
import { exportsOf, importsOf, referencedAmong } from './template';
import type { CfnTemplate, RefusedUpdate, StackAction } from './types';

export interface ExportSimulationInput {
  readonly before: Readonly<Record<string, CfnTemplate | undefined>>;
  readonly after: Readonly<Record<string, CfnTemplate>>;
  readonly order: readonly string[];
  readonly actions: ReadonlyMap<string, StackAction>;
  /** Logical ids each stack's update replaces. */
  readonly replaced: ReadonlyMap<string, ReadonlySet<string>>;
}

const list = (names: readonly string[]): string => names.join(', ');

function exportChange(
  exportName: string,
  deployed: unknown,
  next: ReadonlyMap<string, unknown>,
  replaced: ReadonlySet<string>,
): { kind: 'export-removed' | 'export-changed'; why: string } | undefined {
  if (!next.has(exportName)) return { kind: 'export-removed', why: 'remove' };
  const value = next.get(exportName);
  if (canonicalJson(value) !== canonicalJson(deployed))
    return { kind: 'export-changed', why: 'change the value of' };
  const targets = referencedAmong(value, replaced);
  if (targets.length > 0) {
    return { kind: 'export-changed', why: `replace ${list(targets)} and so change the value of` };
  }
  return undefined;
}

export function refusedUpdates(input: ExportSimulationInput): RefusedUpdate[] {
  const held = new Map<string, CfnTemplate | undefined>(Object.entries(input.before));
  const producers = new Map<string, Set<string>>();
  for (const [stack, template] of [...Object.entries(input.before), ...Object.entries(input.after)]) {
    for (const name of exportsOf(template).keys())
      producers.set(name, (producers.get(name) ?? new Set()).add(stack));
  }
  const importersOf = (exportName: string, except: string): string[] =>
    [...held]
      .filter(([stack, t]) => stack !== except && importsOf(t).has(exportName))
      .map(([stack]) => stack);
  const refused: RefusedUpdate[] = [];
  for (const stackName of input.order) {
    if (input.actions.get(stackName) === 'unchanged') continue;
    const next = input.after[stackName];
    const nextExports = exportsOf(next);
    const found: RefusedUpdate[] = [];
    for (const [exportName, value] of exportsOf(held.get(stackName))) {
      const change = exportChange(exportName, value, nextExports, input.replaced.get(stackName) ?? new Set());
      const importers = change === undefined ? [] : importersOf(exportName, stackName);
      if (change === undefined || importers.length === 0) continue;
      const verb = change.kind === 'export-removed' ? 'delete' : 'update';
      found.push({
        stackName,
        exportName,
        kind: change.kind,
        importers,
        message:
          `${stackName} would ${change.why} export ${exportName} while ${list(importers)} import${importers.length === 1 ? 's' : ''} it: ` +
          `CloudFormation refuses ("Cannot ${verb} export ${exportName} as it is in use by ${importers[0]}")`,
      });
    }
    for (const exportName of importsOf(next)) {
      const known = producers.get(exportName);
      const exists =
        nextExports.has(exportName) ||
        [...held].some(([stack, t]) => stack !== stackName && exportsOf(t).has(exportName));
      if (known === undefined || exists) continue;
      const from = [...known].filter((s) => s !== stackName);
      found.push({
        stackName,
        exportName,
        kind: 'import-missing',
        importers: from,
        message:
          `${stackName} imports ${exportName}, which no stack exports when ${stackName} deploys (${list(from)} ` +
          `export${from.length === 1 ? 's' : ''} it in another version): CloudFormation fails ("No export named ${exportName} found")`,
      });
    }
    refused.push(...found);
    // A refused update is rolled back: the stack keeps its deployed template (and a refused create leaves nothing).
    if (found.length === 0) held.set(stackName, next);
  }
  return refused;
}
