/** The help texts: the overview (`kfek --help`) and one page per command (`kfek <command> --help`). */
import { OPTIONS, type OptionSpec, type OptionTable } from './options';
import type { CommandName } from './types';

export const USAGE = `kfek - send test logs through the pipeline, verify they arrived, run saved Logs Insights queries,
open OpenSearch Dashboards through a local signing proxy, check an account before and after cdk deploy

Usage:
  kfek send   --log-group G [--count N] [--rate R/s] [--run-id ID] [--log-stream S] [--seed N]
  kfek verify --run-id ID --opensearch URL [--index PATTERN] [--expect N] [--timeout S] [--interval S]
              [--ingest-field F] [--sigv4]
  kfek query  --name NAME [--log-group G ...] [--profile NAME] [--since 1h] [--timeout S]
  kfek query  --list
  kfek proxy  --endpoint DOMAIN-ENDPOINT [--port 9200] [--region R] [--max-buffered-mib 256] [--max-bodies 8]
              [--headers-timeout 20s] [--request-timeout 120s] [--upstream-timeout 300s]
  kfek doctor [--profile sandbox] [--region R] [--skip-synth | --cdk-out DIR] [--synth-timeout 300s] [--json]
  kfek replay [--profile NAME | --local] [--kind K ...] [--since T] [--until T] [--reason R] [--limit N]
              [--rate R/s] [--dry-run] [--delete-after] [--json]   (kfek replay --help for all options)
  kfek events-window --since T [--until T] (--events-stream NAME|ARN | --profile NAME) [--limit N] [--rate R/s]
              [--dry-run] [--json]
  kfek backfill (--log-group G ... | --profile NAME) --since 7d [--until T] [--filter-pattern P] [--rate N/s]
              [--dry-run] [--resume] [--json]   (kfek backfill --help for all options)
  kfek reconcile (--profile NAME | --log-group G ...) --since T [--until T] --opensearch URL [--sigv4] [--heal]
              [--lag D] [--count insights|scan] [--bucket NAME | --local-dir DIR] [--json]
  kfek <command> --help    that command's options with their defaults
  kfek --version           the version of kfek

Common options:
  --endpoint URL   CloudWatch Logs endpoint (e.g. http://127.0.0.1:5000 for moto); default AWS_ENDPOINT_URL or AWS
  --region R       default AWS_REGION, or us-east-1 with an endpoint override
  --json           print the result as JSON on stdout
  -h, --help       this text

${Object.values(summaries()).join('\n')}`;

function summaries(): Record<CommandName, string> {
  return {
    send: `send writes N realistic events (JSON app logs with some ERRORs, Lambda START/END/REPORT lines, Log4J lines), each
carrying "kfek_run=<ID> kfek_seq=<n>", at most R per second; the run id is printed at the end.`,
    verify: `verify searches OpenSearch (URL may carry user:password for basic auth) for that run and reports delivered,
missing and latency percentiles; it keeps polling until --expect events are found or --timeout passes.`,
    query: `query runs a built-in query (errors-by-15m, latest-errors, lambda-report-stats; without --log-group on the log
groups of the cdk.json profile, default sandbox) or a saved definition by its full name, over --since, and prints
a table.`,
    proxy: `proxy listens on 127.0.0.1 only and relays every request to the OpenSearch domain signed with SigV4 (your AWS
credentials, service es), so a browser can open http://127.0.0.1:9200/_dashboards; Ctrl-C stops it. The region
defaults to --region, AWS_REGION, or the one in the endpoint host name. It refuses requests other web pages make
(foreign Host or Origin, Sec-Fetch-Site cross-site or same-site) with 403; request bodies are buffered to be signed,
at most 100 MiB each and --max-buffered-mib in total for at most --max-bodies requests at once (more get 503 with
Retry-After); a client slower than --headers-timeout / --request-timeout gets 408, a silent domain 504 after
--upstream-timeout.`,
    doctor: `doctor checks, before \`cdk deploy\`, that your credentials work (and the backend role OpenSearch will see), the
region is set, the account is bootstrapped there, the profile synthesizes, the Lambda concurrency quota and the
OpenSearch instance type fit, and no existing resource holds a name the profile wants; against stacks already
deployed, what the deploy will update, replace and refuse (exports in use, replaced resources, data at risk), read
from their deployed templates; once deployed, that the stacks are complete, the log groups are subscribed to the raw stream and you are mapped in OpenSearch. Each finding
comes with its fix; the exit code is 1 when a check failed.`,
    reconcile: `reconcile proves that nothing was lost: for each log group and minute of the window older than --lag, it compares
what CloudWatch Logs holds (after the subscription's filter pattern) with what OpenSearch holds; where the counts
differ it reads the events, computes each document id as the ingest pipeline does, looks them up and says for every
event: searchable, dropped by a rule, joined into another, kept (dead letter, discarded batch, failed document, with
where), late, or missing. --heal sends the missing ones through the raw stream as kfek backfill does and waits for
them. Prints a table per log group (or --json); the exit code is 1 while anything is missing.`,
    'events-window': `events-window puts the events stream's own records that arrived from --since to --until (default: the command's
start) back on it, every shard, unchanged, so a delivery stream created after them (a recreated Pipeline stack)
delivers them too: closed parent shards before their children, each shard paced to its read limits, throttled
reads retried. Re-put documents overwrite themselves (ids come from log group, stream and event id). --dry-run only
counts. \`kfek replay --kind events-window\` is the same command.`,
  };
}

/** `kfek <command> --help`: what the command does, then each option with its argument and default. */
export function commandHelp(command: CommandName): string {
  return [
    `Usage: kfek ${command} [options]`,
    '',
    summaries()[command],
    '',
    optionsHelp(OPTIONS[command]),
  ].join('\n');
}

/** `Options:` and one line per option of `table`: its argument, what it does, its default. */
export function optionsHelp(table: OptionTable): string {
  const rows = Object.entries(table).map(([name, spec]) => [optionLabel(name, spec), describe(spec)]);
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return ['Options:', ...rows.map(([label, text]) => `  ${label.padEnd(width)}${text}`)].join('\n');
}

function optionLabel(name: string, spec: OptionSpec): string {
  const long = `--${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}`;
  return spec.short !== undefined ? `${long}, -${spec.short}` : long;
}

function describe(spec: OptionSpec): string {
  const shown = spec.shownDefault ?? (typeof spec.default === 'string' ? spec.default : undefined);
  return shown === undefined ? spec.help : `${spec.help} (default: ${shown})`;
}
