/**
 * The security plugin's audit logging configuration (`PUT _plugins/_security/api/audit/config`), which decides
 * whether the domain writes anything to its audit-log group at all: publishing audit logs on the domain only routes
 * what the plugin logs, and the plugin logs nothing until `config.enabled` is true.
 * https://docs.aws.amazon.com/opensearch-service/latest/developerguide/audit-logs.html
 * https://docs.opensearch.org/latest/security/api/audit/update-audit-configuration/
 */

/**
 * Categories left out on both layers: AUTHENTICATED and GRANTED_PRIVILEGES record every successful request
 * (Firehose's bulk writes, every Dashboards read), which would dwarf the failures and changes an audit log is for.
 * They are the plugin's documented defaults for `disabled_rest_categories` / `disabled_transport_categories`.
 */
export const AUDIT_NOISE_CATEGORIES: readonly string[] = ['AUTHENTICATED', 'GRANTED_PRIVILEGES'];

/** The plugin's documented default configuration, used when the domain has none yet. */
export function defaultAuditConfig(): Record<string, unknown> {
  return {
    enabled: true,
    audit: {
      enable_rest: true,
      disabled_rest_categories: [...AUDIT_NOISE_CATEGORIES],
      enable_transport: true,
      disabled_transport_categories: [...AUDIT_NOISE_CATEGORIES],
      resolve_bulk_requests: false,
      log_request_body: true,
      resolve_indices: true,
      exclude_sensitive_headers: true,
      ignore_users: [],
      ignore_requests: [],
      // The 2.19 plugin answers with these two as well (empty lists; measured on opensearch-security 2.19.4.0).
      ignore_headers: [],
      ignore_url_params: [],
    },
    compliance: {
      enabled: true,
      internal_config: true,
      external_config: false,
      read_metadata_only: true,
      read_watched_fields: {},
      read_ignore_users: [],
      write_metadata_only: true,
      write_log_diffs: false,
      write_watched_indices: [],
      write_ignore_users: [],
    },
  };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The configuration to PUT so audit logging is `enabled` (on: with the noise categories disabled on both layers),
 * keeping every other setting as the operator left it; `undefined` when the current one already is that.
 * `current` is the `config` object of `GET _plugins/_security/api/audit` (undefined when there is none).
 */
export function mergeAuditConfig(current: unknown, enabled: boolean): Record<string, unknown> | undefined {
  const stored = record(current);
  const base = stored === undefined || Object.keys(stored).length === 0 ? defaultAuditConfig() : stored;
  const audit = record(base.audit) ?? {};
  const union = (key: string): string[] => {
    const have = Array.isArray(audit[key]) ? (audit[key] as unknown[]).map(String) : [];
    return [...have, ...AUDIT_NOISE_CATEGORIES.filter((c) => !have.includes(c))];
  };
  const desired: Record<string, unknown> = enabled
    ? {
        ...base,
        enabled: true,
        audit: {
          ...audit,
          disabled_rest_categories: union('disabled_rest_categories'),
          disabled_transport_categories: union('disabled_transport_categories'),
        },
      }
    : { ...base, enabled: false };
  return JSON.stringify(desired) === JSON.stringify(current) ? undefined : desired;
}
