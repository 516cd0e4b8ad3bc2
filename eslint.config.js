// @ts-check
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const jestPlugin = require('eslint-plugin-jest');
const importPlugin = require('eslint-plugin-import');
const prettier = require('eslint-config-prettier');

/**
 * Borders between the runtimes (see each folder's README): code that is bundled into a Lambda or loaded by several
 * runtimes must never pull in the CDK app, the CLI or aws-cdk-lib; the CDK app never imports Lambda code or the
 * CLI; the CLI never imports the CDK app. test/lint/borders.test.ts proves each rule fires.
 */
const CDK_PACKAGES = ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs', 'cdk-nag', 'cdk-monitoring-constructs'];
const runtimeBorders = {
  'import/no-restricted-paths': [
    'error',
    {
      zones: [
        {
          target: ['./lambda', './core'],
          from: ['./lib', './bin', './scripts', './bench'],
          message: 'Lambda and CDK-free code must not import the CDK app, the CLI or the local runner.',
        },
        {
          target: ['./lambda', './core'],
          from: './cli',
          message: 'Lambda and CDK-free code must not import the CDK app, the CLI or the local runner.',
        },
        {
          target: './core',
          from: './lambda',
          message: 'CDK-free shared code must not import Lambda handlers.',
        },
        {
          target: './lib',
          from: ['./lambda', './cli', './scripts', './bench'],
          message: 'The CDK app must not import Lambda code or the CLI: move the shared part to core/.',
        },
        {
          target: './cli',
          from: ['./lib', './scripts', './bench'],
          message: 'The CLI must not import the CDK app or Lambda code: move the shared part to core/.',
        },
        {
          target: './cli',
          from: './lambda',
          message: 'The CLI must not import the CDK app or Lambda code: move the shared part to core/.',
        },
        {
          target: './scripts',
          from: ['./lib', './cli', './bin', './bench'],
          message:
            'The local runner and its servers must not import the CDK app or the CLI: move the shared part to core/.',
        },
        {
          target: './lib/constructs',
          from: ['./lib/stacks', './lib/app.ts', './lib/cross-account.ts'],
          message:
            'A construct must not depend on a stack or the app composition: move the shared part down.',
        },
        {
          target: './core/contracts',
          from: './core/config',
          message:
            'Contracts must not import the config model (the config imports the contracts): move the type here.',
        },
      ],
    },
  ],
};
const noCdkImports = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group: CDK_PACKAGES,
          message:
            'Lambda, CLI and CDK-free code never load CDK: it would be bundled into a Lambda or slow the CLI.',
        },
      ],
    },
  ],
};
/** The transform's batch logic loads no adapter and no AWS SDK (only adapters.ts and the handlers do). */
const noTransformAdapters = {
  group: ['@aws-sdk/*', './aws-clients', './dead-letter', './kinesis-writer', './adapters'],
  message: 'Batch logic must not load an adapter or the AWS SDK: depend on the ports instead.',
};
/** The transform's pure core (core/transform, and the reconcile planner over it) does no I/O and reads no Lambda API. */
const noTransformIo = {
  group: [
    '@aws-sdk/*',
    '@smithy/*',
    '@aws-lambda-powertools/*',
    'aws-lambda',
    'node:fs',
    'node:fs/*',
    'node:http',
    'node:https',
    'node:child_process',
  ],
  message:
    'The pure transform does no I/O: take what it needs as data, and leave I/O to lambda/ or the caller.',
};

module.exports = tseslint.config(
  {
    ignores: ['node_modules/**', 'cdk.out/**', '.kfek/**', '.venv/**', 'coverage/**', '**/*.js', '**/*.d.ts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: __dirname },
    },
    plugins: { import: importPlugin },
    // The import plugin resolves relative TypeScript imports itself (for no-restricted-paths below).
    settings: { 'import/resolver': { node: { extensions: ['.ts', '.js', '.json'] } } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-throw-literal': 'off',
      'import/no-extraneous-dependencies': [
        'error',
        {
          devDependencies: ['test/**', 'bench/**', 'scripts/**', '**/*.test.ts'],
        },
      ],
    },
  },
  { files: ['lambda/**/*.ts', 'core/**/*.ts', 'cli/**/*.ts'], rules: { ...runtimeBorders, ...noCdkImports } },
  {
    // The transform's batch logic works against the ports in ports.ts, so tests can pass any transform, writer and
    // store; only the adapters and the wiring (adapters.ts, the handlers) may load the AWS SDK, and only the wiring
    // hands the batch modules the pure core (transform.ts).
    files: ['lambda/transform/kinesis-batch.ts', 'lambda/transform/pipes-batch.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...noCdkImports['no-restricted-imports'][1].patterns,
            noTransformAdapters,
            {
              group: ['./transform', '**/core/transform/transform'],
              message:
                'Batch logic gets the transform core injected (the RecordTransform port), never imported.',
            },
          ],
        },
      ],
    },
  },
  {
    // The pure core does no I/O: no AWS SDK, no Lambda API, no files, no network.
    files: ['core/transform/**/*.ts', 'core/reconcile/planner.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [...noCdkImports['no-restricted-imports'][1].patterns, noTransformIo],
        },
      ],
    },
  },
  { files: ['lib/**/*.ts', 'bin/**/*.ts', 'scripts/**/*.ts'], rules: runtimeBorders },
  {
    files: ['test/**/*.ts'],
    ...jestPlugin.configs['flat/recommended'],
    rules: {
      ...jestPlugin.configs['flat/recommended'].rules,
      'jest/no-focused-tests': 'error',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
  prettier,
);
