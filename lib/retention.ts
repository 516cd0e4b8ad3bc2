import * as logs from 'aws-cdk-lib/aws-logs';

/** CloudWatch Logs' retention periods, by number of days (every member of CDK's `RetentionDays` but INFINITE). */
const BY_DAYS: ReadonlyMap<number, logs.RetentionDays> = new Map(
  Object.values(logs.RetentionDays)
    .filter((value): value is logs.RetentionDays => typeof value === 'number')
    .map((value) => [value, value]),
);

/**
 * The `RetentionDays` member for a number of days from the config (which core/config already limits to the values
 * CloudWatch Logs accepts). A lookup rather than a cast, so a value outside the enum fails here, naming the setting,
 * instead of reaching CloudFormation.
 */
export function retentionDays(days: number, setting: string): logs.RetentionDays {
  const retention = BY_DAYS.get(days);
  if (retention === undefined) {
    throw new Error(
      `${setting} is ${days}; CloudWatch Logs keeps logs for one of ${[...BY_DAYS.keys()].sort((a, b) => a - b).join(', ')} days.`,
    );
  }
  return retention;
}
