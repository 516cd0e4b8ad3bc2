/**
 * Preloaded (`node -r`) into processes the tests fork outside jest (the transform's child process): drops the AWS
 * SDK's Node-version notice there as test/helpers/jest-setup.ts does in jest, so a passing run prints no warnings.
 */
import { dropNodeVersionSupportWarning } from './warnings';

dropNodeVersionSupportWarning(process);
