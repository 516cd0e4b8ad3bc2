/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking is done once by `tsc --noEmit` (npm run typecheck); ts-jest only transpiles here, because
    // tsconfig.json sets `isolatedModules` (ts-jest reads it from there), which keeps a CDK template test at ~4 s
    // instead of ~15 s.
    '^.+\\.tsx?$': ['ts-jest', { diagnostics: false }],
  },
  setupFilesAfterEnv: ['<rootDir>/test/helpers/jest-setup.ts'],
  snapshotSerializers: ['<rootDir>/test/helpers/asset-hash-serializer.js'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
