/** The change planner was called with input it cannot plan (a caller's mistake, not a finding about the change). */
export class ChangePlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChangePlanError';
  }
}
