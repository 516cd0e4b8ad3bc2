/**
 * The change planner: given the deployed and the new templates of a set of stacks and their deploy order, what
 * CloudFormation would do (create, update, refuse, replace, delete) and what data that puts at risk. CDK-free.
 */
export { describeDeletion, describePlan, describeReplacement, describeStack } from './describe';
export { ChangePlanError } from './errors';
export { planChange } from './plan';
export { SCHEMA_SOURCE } from './schema-table';
export { asTemplate, exportsOf, importsOf } from './template';
export { isStateful, STATEFUL_TYPES } from './stateful';
export type * from './types';
