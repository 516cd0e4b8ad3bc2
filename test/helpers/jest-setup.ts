/**
 * Runs before every test file (jest.config.js `setupFilesAfterEnv`): keeps a passing run's output free of noise
 * that is not about the code under test, and its temp dir empty.
 */
import { removeTestTempDirs } from './temp-dirs';
import { dropNodeVersionSupportWarning } from './warnings';

dropNodeVersionSupportWarning(process);

afterAll(() => removeTestTempDirs());
