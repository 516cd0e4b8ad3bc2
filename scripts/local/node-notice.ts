/**
 * The AWS SDK's Node.js version notice, said once at the start of a local run instead of in the middle of it.
 *
 * On Node.js 20 the SDK (`@aws-sdk/core`, `emitWarningIfUnsupportedVersion`) emits `NodeVersionSupportWarning` the
 * first time a client is built, as a string warning whose `name` is plain `Warning`, so a filter on the warning's
 * name never catches it; its own switch, `AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true`, does, and the
 * transform's child processes inherit it with the environment. README.md "Which Node.js" has the details.
 */

/** The SDK's switch (read by `@aws-sdk/core` on every process). */
export const SDK_NODE_WARNING_SWITCH = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

/** The oldest Node.js major that the SDK's releases after the first week of January 2027 run on. */
export const SDK_NEXT_NODE_MAJOR = 22;

/**
 * Switches the SDK's warning off in `env` (unless the user set the switch) and returns the one line that says what
 * it would have meant, or undefined when there is nothing to say (Node.js 22+, or the user chose to see the SDK's).
 */
export function sayNodeNoticeOnce(env: NodeJS.ProcessEnv, nodeVersion: string): string | undefined {
  if (env[SDK_NODE_WARNING_SWITCH] !== undefined) return undefined;
  env[SDK_NODE_WARNING_SWITCH] = 'true';
  const major = Number(/^v?(\d+)\./.exec(nodeVersion)?.[1]);
  if (!Number.isInteger(major) || major >= SDK_NEXT_NODE_MAJOR) return undefined;
  return (
    `note: Node.js ${nodeVersion} runs this run as is (package-lock.json pins AWS SDK releases that support it); ` +
    `the SDK's releases after the first week of January 2027 need Node.js ${SDK_NEXT_NODE_MAJOR}+, so update the ` +
    'SDK only with a newer Node.js (README.md, "Which Node.js").'
  );
}
