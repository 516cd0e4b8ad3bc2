/** `npm start`'s command line: options, defaults and usage text. */
import type { PipelineConfig } from '../../core/config';
import { StartOptionsError } from './errors';
import type { LocalCollectionAccess } from './local-collection';
import type { runEvents } from './workload';
import { MAX_WARM_UP_DOCUMENTS, WARM_UP_DOCUMENTS } from './warm-up';

/** Parsed command line. */
export interface StartOptions {
  /** Events to write. */
  readonly events: number;
  /** cdk.json profile; undefined picks the config's default (sandbox). */
  readonly profile?: string;
  /** Leave OpenSearch running after the summary. */
  readonly keep: boolean;
  /** Log streams per log group. */
  readonly streamsPerGroup: number;
  /** Print every invocation's and bulk request's timing. */
  readonly verbose: boolean;
  /** Warm the freshly started OpenSearch node up before writing (scripts/local/warm-up.ts). */
  readonly warmUp: boolean;
  /** Run `kfek reconcile` over the run's window at the end (scripts/local/reconcile-step.ts). */
  readonly reconcile: boolean;
  /**
   * How documents reach OpenSearch: the Firehose stand-in, or kfek's own indexer (the shipped lambda/indexer
   * handler; issue 41). @default 'firehose'
   */
  readonly delivery: 'firehose' | 'direct';
  /**
   * The run's work folder, emptied first (not a command-line option: tests give their own temporary folder).
   * @default - `.kfek/local` in the repository
   */
  readonly workDir?: string;
  /**
   * The resolved config to run in place of cdk.json's profile (not a command-line option: a test builds one from a
   * profile with overrides, as test/e2e/serverless-teams.test.ts does).
   * @default - cdk.json's `profile`
   */
  readonly config?: PipelineConfig;
  /**
   * The events the run writes (not a command-line option: a test writes its own lines).
   * @default - runEvents (workload.ts), the log generator's events
   */
  readonly workload?: typeof runEvents;
  /**
   * On a serverless profile, the data access policy the stand-in enforces and the indexer's own key (not a
   * command-line option).
   * @default - none enforced: the local key may do everything Serverless's rules allow
   */
  readonly collectionAccess?: LocalCollectionAccess;
}

/** About a minute end to end on a 2-core machine once OpenSearch is unpacked (its start is most of it). */
export const DEFAULT_EVENTS = 3000;

export const USAGE = `usage: npm start -- [--events N] [--profile NAME] [--delivery firehose|direct] [--keep] [--verbose]
                    [--no-warm-up] [--no-reconcile]

  --events N       log events to write (default ${DEFAULT_EVENTS})
  --profile NAME   config profile from cdk.json "kfek.profiles" (default: sandbox)
  --delivery MODE  firehose (default: the Firehose stand-in and the ingest pipeline) or direct (kfek's own
                   indexer, the shipped lambda/indexer handler, writes each document with its id, index and routing);
                   a serverless profile (sandbox-serverless) always runs direct, through the Serverless stand-in
  --keep           leave OpenSearch running afterwards for exploring (prints how to stop it)
  --verbose        print the timing of every transform invocation and bulk request
  --no-warm-up     write at once to the cold OpenSearch node (by default as many documents as the run writes,
                   ${WARM_UP_DOCUMENTS} to ${MAX_WARM_UP_DOCUMENTS}, warm it up first, into an index that is deleted again,
                   so the run measures a node in steady state)
  --no-reconcile   skip the last step, kfek reconcile over the run's window (CloudWatch Logs against OpenSearch)`;

/** Parses `process.argv.slice(2)`; throws {@link StartOptionsError} for anything it does not know. */
export function parseStartOptions(argv: readonly string[]): StartOptions | 'help' {
  let events = DEFAULT_EVENTS;
  let profile: string | undefined;
  let keep = false;
  let verbose = false;
  let warmUp = true;
  let reconcile = true;
  let delivery: StartOptions['delivery'] = 'firehose';
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new StartOptionsError(`${flag} needs a value\n\n${USAGE}`);
      return v;
    };
    switch (flag) {
      case '--events': {
        const text = value();
        events = Number(text);
        if (!/^\d+$/.test(text) || events < 1 || events > 1_000_000) {
          throw new StartOptionsError(
            `--events is ${JSON.stringify(text)}; expected a whole number from 1 to 1000000`,
          );
        }
        break;
      }
      case '--profile':
        profile = value();
        break;
      case '--delivery': {
        const text = value();
        if (text !== 'firehose' && text !== 'direct') {
          throw new StartOptionsError(`--delivery is ${JSON.stringify(text)}; expected firehose or direct`);
        }
        delivery = text;
        break;
      }
      case '--keep':
        keep = true;
        break;
      case '--verbose':
        verbose = true;
        break;
      case '--no-warm-up':
        warmUp = false;
        break;
      case '--no-reconcile':
        reconcile = false;
        break;
      case '--help':
      case '-h':
        return 'help';
      default:
        throw new StartOptionsError(`unknown option ${JSON.stringify(arg)}\n\n${USAGE}`);
    }
  }
  return { events, profile, keep, verbose, warmUp, reconcile, delivery, streamsPerGroup: 2 };
}
