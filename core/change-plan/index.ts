/**
 * The change planner: given the deployed and the new templates of a set of stacks and their deploy order, what
 * CloudFormation would do (create, update, refuse, replace, delete) and what data that puts at risk; each finding
 * with its one impact (core/contracts/impact.ts, the vocabulary the domain planner shares) and its fix
 * (fixes.ts). CDK-free.
 */
export {
  type ChangeFinding,
  describeDeletion,
  describePlan,
  describeReplacement,
  describeStack,
  planFindings,
} from './describe';
export { deliveryOf, deliverySwitches } from './delivery-switch';
export { ChangePlanError } from './errors';
export { type FixContext, type FixedFinding, fixOf, withFixes } from './fixes';
export { IMPACTS, type Impact, type Severity, worstFirst } from '../contracts/impact';
export { planChange } from './plan';
export { SCHEMA_SOURCE } from './schema-table';
export { asTemplate, exportsOf, importsOf } from './template';
export { isStateful, STATEFUL_TYPES, type StatefulTypeName } from './stateful';
export type * from './types';
