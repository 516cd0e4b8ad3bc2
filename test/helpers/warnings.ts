/**
 * Which process warnings a test run drops. On Node 20 the AWS SDK warns once per process that its releases from
 * 2027 need Node 22: it says nothing about the code under test, so test output drops exactly that warning (as
 * bin/kfek-cli.js does for the CLI) and keeps every other.
 */

/** The SDK's `emitWarning` call passes one string that starts with the warning's name (its type is `Warning`). */
const NODE_VERSION_SUPPORT = 'NodeVersionSupportWarning';

/** `process.emitWarning(warning, typeOrOptions?, ...)` is the AWS SDK's Node version support warning. */
export function isNodeVersionSupportWarning(warning: unknown, typeOrOptions?: unknown): boolean {
  if (warning instanceof Error) {
    return warning.name === NODE_VERSION_SUPPORT || warning.message.startsWith(`${NODE_VERSION_SUPPORT}:`);
  }
  const type =
    typeof typeOrOptions === 'string'
      ? typeOrOptions
      : typeof typeOrOptions === 'object' && typeOrOptions !== null
        ? (typeOrOptions as { type?: unknown }).type
        : undefined;
  return (
    type === NODE_VERSION_SUPPORT ||
    (typeof warning === 'string' && warning.startsWith(`${NODE_VERSION_SUPPORT}:`))
  );
}

/** Wraps `target.emitWarning` so that it drops {@link isNodeVersionSupportWarning} and passes every other warning. */
export function dropNodeVersionSupportWarning(target: Pick<NodeJS.Process, 'emitWarning'>): void {
  const emit = target.emitWarning.bind(target) as (...args: unknown[]) => void;
  target.emitWarning = (warning: unknown, ...rest: unknown[]): void => {
    if (isNodeVersionSupportWarning(warning, rest[0])) return;
    emit(warning, ...rest);
  };
}
