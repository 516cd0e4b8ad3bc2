/** What the config says about one route with the given `processing` (route-pattern tests, issue 39). */
import { ConfigValidationError, resolveConfig } from '../../core/config';

export function processingProblems(processing: unknown): string[] {
  const route = {
    name: 'payments',
    match: { logGroupPrefix: '/kfek/teams/payments' },
    indexStem: 'payments',
    processing,
  };
  try {
    resolveConfig({ kfek: { profiles: { test: { routes: [route] } } } }, 'test');
    return [];
  } catch (error) {
    if (error instanceof ConfigValidationError) return [...error.problems];
    throw error;
  }
}
