/**
 * `npm start`: the whole kfek pipeline on this machine, with no AWS account.
 *
 * 1. Installs the Python tools into `.venv/` (moto) and unpacks OpenSearch into `.kfek/` (both git-ignored).
 * 2. Starts moto (CloudWatch Logs, Kinesis, S3) and a real OpenSearch node on 127.0.0.1, free ports.
 * 3. Creates the log groups, subscription filters, streams and dead-letter bucket from the CDK app's own config
 *    (`resolveConfig` over cdk.json, profile `sandbox` unless `--profile`), provisions OpenSearch with the shipped
 *    core/opensearch code, and runs the transform handler under a local event-source loop and a local stand-in for
 *    Firehose (scripts/local/pipeline.ts).
 * 4. Writes generated log events (core/log-generator.ts) with a progress bar, waits until every event is indexed or
 *    accounted for, and prints a summary. Ctrl-C stops everything it started; `--keep` leaves OpenSearch up.
 *
 * See docs/local.md.
 */
import { parseStartOptions, type StartOptions, USAGE } from './options';
import { runStoppingOnSignals } from './run';

async function main(argv: readonly string[]): Promise<number> {
  let options: StartOptions | 'help';
  try {
    options = parseStartOptions(argv);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 2;
  }
  if (options === 'help') {
    console.log(USAGE);
    return 0;
  }
  const { code } = await runStoppingOnSignals(options, 'npm start');
  return code;
}

if (require.main === module) {
  // The AWS SDK warns on every Node 20 process that later releases need Node 22; said once in docs/local.md,
  // it would otherwise sit in the middle of the run's output. Every other warning is still printed.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name !== 'NodeVersionSupportWarning') console.error(`${warning.name}: ${warning.message}`);
  });
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
