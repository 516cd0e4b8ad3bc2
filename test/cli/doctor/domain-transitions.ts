/**
 * Changes to a deployed profile that change what lives inside the OpenSearch domain (issue 30), each with what
 * `kfek doctor` says of it before the deploy: docs/deploy.md's table "Changes inside the domain" is held to these
 * rows (test/cli/doctor/domain.test.ts), and the transition test on a real node
 * (test/core/opensearch/transitions.secured.test.ts) applies the same kinds of change.
 */
import type { Status } from '../../../cli/doctor/model';

export type Profile = Record<string, unknown>;

export interface DomainTransition {
  /** The docs table's first column. */
  readonly change: string;
  readonly to: (profile: Profile) => Profile;
  /** The doctor's worst status over its domain findings, and the findings that carry it. */
  readonly doctor: Status;
  readonly checks: Readonly<Record<string, Status>>;
}

const edit =
  (change: (p: Profile) => void) =>
  (profile: Profile): Profile => {
    const p = structuredClone(profile);
    change(p);
    return p;
  };
const section = (p: Profile, key: string): Profile => {
  const existing = p[key];
  if (typeof existing === 'object' && existing !== null && !Array.isArray(existing))
    return existing as Profile;
  const created: Profile = {};
  p[key] = created;
  return created;
};
const routes = (p: Profile): Profile[] => p.routes as Profile[];

export const DOMAIN_TRANSITIONS: readonly DomainTransition[] = [
  {
    change: "Raise a retention (`openSearch.retention.deleteAfterDays`, a route's `retentionDays`)",
    to: edit((p) => (routes(p)[0].retentionDays = 60)),
    doctor: 'ok',
    checks: { 'domain-keeps-longer': 'ok' },
  },
  {
    change: 'Lower a retention',
    to: edit((p) => (routes(p)[1].retentionDays = 3)),
    doctor: 'fail',
    checks: { 'domain-loses-data': 'fail' },
  },
  {
    change: 'Add a reader or an admin (`readerBackendRoles`, `adminBackendRoles`)',
    to: edit((p) => {
      const access = section(section(p, 'openSearch'), 'access');
      access.readerBackendRoles = [...(access.readerBackendRoles as string[]), 'more-readers'];
    }),
    doctor: 'ok',
    checks: { 'domain-grants-access': 'ok' },
  },
  {
    change: 'Remove a reader or an admin',
    to: edit((p) => {
      const access = section(section(p, 'openSearch'), 'access');
      access.readerBackendRoles = [];
      access.adminBackendRoles = [];
    }),
    doctor: 'fail',
    checks: { 'domain-loses-access': 'fail' },
  },
  {
    change: 'Add a route',
    to: edit((p) => {
      p.routes = [
        ...routes(p),
        {
          name: 'audit',
          match: { logGroup: '/kfek/teams/audit' },
          indexStem: 'audit',
          readerBackendRoles: ['audit-readers'],
        },
      ];
    }),
    doctor: 'ok',
    checks: { 'domain-grants-access': 'ok', 'domain-change': 'ok' },
  },
  {
    change: 'Remove a route',
    to: edit((p) => (p.routes = routes(p).slice(0, 1))),
    doctor: 'ok',
    checks: { 'domain-kept': 'ok' },
  },
  {
    change: 'Rename a route',
    to: edit((p) => (routes(p)[0].name = 'pay')),
    doctor: 'ok',
    checks: { 'domain-kept': 'ok' },
  },
  {
    change: "Change a route's `indexStem` (also to one extending the old: `search` -> `search-eu`)",
    to: edit((p) => (routes(p)[1].indexStem = 'search-eu')),
    doctor: 'ok',
    checks: { 'domain-kept': 'ok' },
  },
  {
    change: 'Change `delivery.indexPrefix` (also to one extending the old: `logs` -> `logs-v2`)',
    to: edit((p) => (section(p, 'delivery').indexPrefix = 'logs-v2')),
    doctor: 'ok',
    checks: { 'domain-kept': 'ok' },
  },
  {
    change: "Add a route whose stem extends another's (`logs-audit`)",
    to: edit((p) => {
      p.routes = [
        ...routes(p),
        {
          name: 'audit',
          match: { logGroup: '/kfek/teams/audit' },
          indexStem: 'logs-audit',
          readerBackendRoles: ['audit-readers'],
        },
      ];
    }),
    doctor: 'ok',
    checks: { 'domain-change': 'ok' },
  },
  {
    change:
      'Change a dynamic index setting (`totalFieldsLimit`, `refreshSeconds`, `replicas`, slow-log thresholds)',
    to: edit((p) => (section(section(p, 'openSearch'), 'indexTemplate').totalFieldsLimit = 2000)),
    doctor: 'ok',
    checks: { 'domain-change': 'ok' },
  },
  {
    change: 'Change `openSearch.indexTemplate.shards`',
    to: edit((p) => (section(section(p, 'openSearch'), 'indexTemplate').shards = 2)),
    doctor: 'ok',
    checks: { 'domain-next-index': 'ok' },
  },
];
