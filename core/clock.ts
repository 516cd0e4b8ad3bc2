/**
 * What waits and measures (habit 17: time is injected): the wall clock in the CLI and the Lambda functions, a fake
 * one in tests.
 */
export interface Clock {
  readonly now: () => number;
  readonly sleep: (millis: number) => Promise<void>;
}

export const sleep = (millis: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, millis));

/** The wall clock. */
export const SYSTEM_CLOCK: Clock = { now: () => Date.now(), sleep };
