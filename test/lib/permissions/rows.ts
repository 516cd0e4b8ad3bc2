/** Every row of the permission matrix, allowed and denied (one file per part of the pipeline). */
import type { Row } from './calls';
import { CROSS_ACCOUNT_DENY_ROWS, CROSS_ACCOUNT_ROWS } from './rows-cross-account';
import { DELIVERY_ROWS } from './rows-delivery';
import { INGEST_ROWS } from './rows-ingest';
import { OPERATIONS_ROWS } from './rows-operations';
import { RECONCILE_DENY_ROWS, RECONCILE_ROWS } from './rows-reconcile';

import { DENY_ROWS as SINGLE_ACCOUNT_DENY_ROWS } from './rows-deny';
export { USER_POLICY_FILE, type VariantTraits } from './calls';

export const ALLOW_ROWS: readonly Row[] = [
  ...INGEST_ROWS,
  ...DELIVERY_ROWS,
  ...OPERATIONS_ROWS,
  ...CROSS_ACCOUNT_ROWS,
  ...RECONCILE_ROWS,
];
export const DENY_ROWS: readonly Row[] = [
  ...SINGLE_ACCOUNT_DENY_ROWS,
  ...CROSS_ACCOUNT_DENY_ROWS,
  ...RECONCILE_DENY_ROWS,
];
