/** The configuration's typed errors: one base class, every message says what is wrong and how to fix it. */

/** Base class of configuration errors. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** cdk.json could not be read or is not JSON. */
export class CdkJsonReadError extends ConfigError {
  constructor(
    readonly cdkJsonPath: string,
    override readonly cause: unknown,
  ) {
    super(`could not read ${cdkJsonPath}: ${String(cause)}`);
    this.name = 'CdkJsonReadError';
  }
}

/** The selected profile is not defined in cdk.json. */
export class UnknownProfileError extends ConfigError {
  constructor(
    readonly profile: string,
    readonly known: readonly string[],
  ) {
    super(
      `Unknown config profile ${JSON.stringify(profile)}: cdk.json context "kfek.profiles" defines ` +
        `${known.length === 0 ? 'none' : known.map((k) => JSON.stringify(k)).join(', ')}. ` +
        `Pass one of them with -c profile=NAME, or add "${profile}" under "kfek.profiles".`,
    );
    this.name = 'UnknownProfileError';
  }
}

/** One or more settings are invalid; `problems` lists each one. */
export class ConfigValidationError extends ConfigError {
  constructor(
    readonly profile: string,
    readonly problems: readonly string[],
  ) {
    super(
      `Invalid kfek configuration (profile ${JSON.stringify(profile)}), ${problems.length} problem(s):\n` +
        problems.map((p) => `  - ${p}`).join('\n') +
        `\nFix them in cdk.json under "kfek.profiles.${profile}".`,
    );
    this.name = 'ConfigValidationError';
  }
}
