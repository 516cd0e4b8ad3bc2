#!/usr/bin/env node
/**
 * Composition root: reads the config, builds the stacks, attaches cdk-nag. Nothing is decided here.
 * `npx cdk synth -c profile=production` selects a profile of cdk.json (default: sandbox).
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { buildKfek } from '../lib/app';
import { configFromApp } from '../lib/config';

const app = new App();
const config = configFromApp(app);
buildKfek(app, config);
// cdk-nag 3: a policy-validation plugin; synth fails on any unacknowledged finding.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
