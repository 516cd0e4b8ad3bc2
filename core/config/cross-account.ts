/**
 * The cross-account part of `sources` (docs/multi-account.md): which other accounts (or which AWS Organization)
 * may send logs to this pipeline, from which regions, and what the source-account stack subscribes there.
 * Kept out of resolve.ts, which reads the single-account settings, so each file keeps one job.
 */
import { LOG_GROUP_HINT, LOG_GROUP_NAME, REGION, REGION_HINT, checkLogGroupName } from './names';
import type { Reader } from './reader';
import type { PipelineConfig, SourcesConfig } from './types';

const ACCOUNT = /^\d{12}$/;
const ACCOUNT_HINT = 'a 12-digit AWS account id such as "222233334444"';
// https://docs.aws.amazon.com/organizations/latest/APIReference/API_Organization.html (Id)
const ORGANIZATION_ID = /^o-[a-z0-9]{10,32}$/;
const ORGANIZATION_HINT = 'an AWS Organizations id such as "o-a1b2c3d4e5"';
const FILTER_PATTERN = /^.{0,1024}$/s;
const FILTER_HINT = 'a filter pattern of at most 1024 characters';

/** The cross-account settings of `sources`, as {@link SourcesConfig} holds them. */
export type CrossAccountSources = Pick<SourcesConfig, 'accounts' | 'organizationId' | 'regions' | 'remote'>;

/** True when the profile receives logs from other accounts (source accounts listed, or an organization). */
export function isCrossAccount(sources: Pick<SourcesConfig, 'accounts' | 'organizationId'>): boolean {
  return sources.accounts.length > 0 || sources.organizationId !== undefined;
}

function unique(r: Reader, path: string, values: readonly string[]): void {
  values.forEach((v, i) => {
    if (v !== '' && values.indexOf(v) !== i) {
      r.problem(`${path}[${i}] ${JSON.stringify(v)} is listed twice; list each once.`);
    }
  });
}

/**
 * Reads `sources.accounts`, `sources.organizationId`, `sources.regions` and `sources.remote`, with the rules that
 * tie them to the rest of the profile: a cross-account profile pins `account` and `region` (destination, role and
 * stream ARNs are built from them, see lib/cross-account.ts), does not list its own account as a source, and
 * subscribes something in the source accounts.
 */
export function readCrossAccount(r: Reader, env: PipelineConfig['env']): CrossAccountSources {
  const accounts = r.strings('sources.accounts', ACCOUNT, ACCOUNT_HINT);
  unique(r, 'sources.accounts', accounts);
  const organizationId = r.optStr('sources.organizationId', ORGANIZATION_ID, ORGANIZATION_HINT);
  const listedRegions = r.strings('sources.regions', REGION, REGION_HINT);
  unique(r, 'sources.regions', listedRegions);
  const remote = {
    logGroups: r.strings('sources.remote.logGroups', LOG_GROUP_NAME, LOG_GROUP_HINT),
    filterPattern: r.str('sources.remote.filterPattern', FILTER_PATTERN, FILTER_HINT),
    accountPolicy: {
      enabled: r.bool('sources.remote.accountPolicy.enabled'),
      filterPattern: r.str('sources.remote.accountPolicy.filterPattern', FILTER_PATTERN, FILTER_HINT),
      excludeLogGroups: r.strings(
        'sources.remote.accountPolicy.excludeLogGroups',
        LOG_GROUP_NAME,
        LOG_GROUP_HINT,
      ),
    },
  };
  unique(r, 'sources.remote.logGroups', remote.logGroups);
  remote.logGroups.forEach((name, i) => checkLogGroupName(r, `sources.remote.logGroups[${i}]`, name, false));

  const enabled = accounts.length > 0 || organizationId !== undefined;
  if (!enabled) {
    const stray = [
      listedRegions.length > 0 ? 'sources.regions' : undefined,
      remote.logGroups.length > 0 ? 'sources.remote.logGroups' : undefined,
      remote.accountPolicy.enabled ? 'sources.remote.accountPolicy.enabled' : undefined,
    ].filter((s): s is string => s !== undefined);
    if (stray.length > 0) {
      r.problem(
        `${stray.join(' and ')} ${stray.length > 1 ? 'are' : 'is'} set but neither sources.accounts nor ` +
          'sources.organizationId names a source account, so nothing would be deployed for them. List the source ' +
          'accounts in sources.accounts (or set sources.organizationId), or remove the setting.',
      );
    }
    return { accounts, organizationId, regions: [], remote };
  }

  if (env.account === undefined || env.region === undefined) {
    r.problem(
      'sources.accounts/sources.organizationId need "account" and "region" pinned in the profile (the central ' +
        'account and region of the raw stream): the source stacks and the destinations in other regions name the ' +
        'destination, its role and the stream by ARNs built from them. Add "account": "<12 digits>" and ' +
        '"region": "<region>" to the profile.',
    );
  }
  if (env.account !== undefined && accounts.includes(env.account)) {
    r.problem(
      `sources.accounts lists ${env.account}, the profile's own (central) account: its log groups are subscribed ` +
        'directly with sources.logGroups / sources.accountPolicy. Remove it from sources.accounts.',
    );
  }
  if (remote.logGroups.length === 0 && !remote.accountPolicy.enabled) {
    r.problem(
      'sources.accounts/sources.organizationId is set but the source stacks would subscribe nothing: list log ' +
        'groups in sources.remote.logGroups or set sources.remote.accountPolicy.enabled to true.',
    );
  }
  const regions = listedRegions.length > 0 ? listedRegions : env.region !== undefined ? [env.region] : [];
  return { accounts, organizationId, regions, remote };
}
