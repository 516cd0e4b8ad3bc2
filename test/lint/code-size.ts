/**
 * The sizes the house holds itself to (issue 40, item 6): files past {@link MAX_FILE_LINES} lines and functions
 * past {@link MAX_FUNCTION_LINES}, measured from the TypeScript syntax tree of the code that runs (bin/, lib/,
 * lambda/, core/, cli/, scripts/, bench/; tests and fixtures are not measured).
 *
 * A function's size is the span of its lines from its first token (name, `async`, parameters) to its closing brace,
 * nested callbacks included, as ESLint's max-lines-per-function counts it: what a reader has to hold at once. A
 * constructor is named `<Class>.constructor`, a method `<Class>.<name>`, an arrow function or function expression by
 * the variable or property it is assigned to, and any other (an inline callback) by the function it stands in, so
 * the name survives edits above it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/** The file ceiling: past it a file has more than one job (../shared/STYLE.md, habit 16). */
export const MAX_FILE_LINES = 400;
/** The function ceiling. */
export const MAX_FUNCTION_LINES = 80;

/** The folders whose code runs somewhere (not tests). */
export const MEASURED_FOLDERS = ['bin', 'lib', 'lambda', 'core', 'cli', 'scripts', 'bench'] as const;

export interface Oversize {
  /** `path/from/root.ts` for a file, `path/from/root.ts#Name` for a function. */
  readonly id: string;
  readonly lines: number;
}

function sourceFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'fixtures' || entry.name === 'node_modules' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

type FunctionNode = ts.FunctionLikeDeclaration & { readonly body?: ts.Node };

function isMeasuredFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function className(node: ts.Node): string {
  const parent = node.parent;
  if ((ts.isClassDeclaration(parent) || ts.isClassExpression(parent)) && parent.name !== undefined) {
    return parent.name.text;
  }
  return '<class>';
}

/** The name a reader knows the function by; `outer` is the name of the function it stands in, if any. */
function functionName(node: FunctionNode, outer: string | undefined): string {
  if (ts.isConstructorDeclaration(node)) return `${className(node)}.constructor`;
  if (
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  ) {
    const owner = ts.isClassLike(node.parent)
      ? `${className(node)}.`
      : outer === undefined
        ? ''
        : `${outer}.`;
    return `${owner}${node.name.getText()}`;
  }
  if (node.name !== undefined) return node.name.getText();
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    return parent.name.getText();
  }
  return outer === undefined ? '<callback>' : `<callback in ${outer}>`;
}

/** The oversize files and functions of one file's text (`file` relative to the root, with `/`). */
export function oversizeIn(file: string, text: string): Oversize[] {
  const found: Oversize[] = [];
  const lineCount = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lineCount > MAX_FILE_LINES) found.push({ id: file, lines: lineCount });
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number): number => source.getLineAndCharacterOfPosition(position).line;
  const visit = (node: ts.Node, outer: string | undefined): void => {
    let inner = outer;
    if (isMeasuredFunction(node) && node.body !== undefined) {
      const name = functionName(node, outer);
      const lines = lineOf(node.end) - lineOf(node.getStart(source)) + 1;
      if (lines > MAX_FUNCTION_LINES) found.push({ id: `${file}#${name}`, lines });
      inner = name;
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, undefined);
  return found;
}

/** Every oversize file and function under `root`'s measured folders, largest first. */
export function oversizeUnder(root: string): Oversize[] {
  return MEASURED_FOLDERS.flatMap((folder) => sourceFiles(path.join(root, folder)))
    .flatMap((file) =>
      oversizeIn(path.relative(root, file).split(path.sep).join('/'), readFileSync(file, 'utf8')),
    )
    .sort((a, b) => b.lines - a.lines || a.id.localeCompare(b.id));
}
