/**
 * The Lambda `Context` a test hands a handler it calls directly (Lambda itself cannot run here: it needs Docker).
 * The handler reads only `getRemainingTimeInMillis`; the rest is what Lambda would pass.
 */
import type { Context } from 'aws-lambda';

/** A context whose remaining time is `remainingMs()`: a fixed budget, or a countdown on a clock. */
export function lambdaContext(remainingMs: () => number): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'kfek-transform',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:kfek-transform',
    memoryLimitInMB: '512',
    awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
    logGroupName: '/aws/lambda/kfek-transform',
    logStreamName: '2026/11/23/[$LATEST]abcdef',
    getRemainingTimeInMillis: remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * A context with `budgetMs` left from now on `clock`: `Date.now`, which is jest's fake clock in a test that
 * fakes timers, and the real one where the handler talks to real servers (moto) and time really passes.
 */
export function lambdaContextWithBudget(budgetMs: number, clock: () => number = Date.now): Context {
  const deadline = clock() + budgetMs;
  return lambdaContext(() => deadline - clock());
}
