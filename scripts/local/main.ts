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
import { sayNodeNoticeOnce } from './node-notice';
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
  // The AWS SDK's Node.js 20 notice is said once, first, instead of in the middle of the run's output.
  const notice = sayNodeNoticeOnce(process.env, process.version);
  if (notice !== undefined) console.error(notice);
  const { code } = await runStoppingOnSignals(options, 'npm start');
  return code;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
