/**
 * The security plugin's configuration for the secured local node: the `opensearch.yml` settings (TLS on both
 * layers from tls-material.ts, the admin certificate's DN, the REST API's access, audit logging into the node
 * itself) and the files the plugin loads into its index at first start (`plugins.security.allow_default_init_
 * securityindex`, from `config/opensearch-security/`): who can log in and what the admin may do.
 *
 * The files are written as JSON, which is YAML too. What they hold:
 * - config.yml: HTTP basic authentication against the internal users, nothing else (no anonymous access);
 * - internal_users.yml: `admin` (backend role `admin`) and the caller's users, each with a random password
 *   generated at every start (bcrypt-hashed: the plugin's default hash for internal users) and their backend roles,
 *   which is how kfek's role mappings reach them (a Firehose role ARN or a reader group is a backend role);
 * - roles_mapping.yml: backend role `admin` to `all_access` and `security_manager`, as Amazon OpenSearch Service
 *   maps its master user;
 * - roles.yml: the two built-in roles of Amazon OpenSearch Service that kfek maps people to and the open-source
 *   plugin lacks (`security_manager`, `opensearch_dashboards_user`), defined as the service describes them, so the
 *   provisioner meets the roles it meets on AWS.
 * The plugin's other files (action groups, tenants, audit.yml, nodes_dn, allowlist) stay as it ships them.
 */
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { TlsMaterial } from './tls-material';

/** A user of the secured node and the backend roles role mappings match. */
export interface SecuredUser {
  readonly name: string;
  /** e.g. the Firehose role's ARN, or a readers' group. */
  readonly backendRoles: readonly string[];
}

export interface Credentials {
  readonly username: string;
  readonly password: string;
}

/** The admin user's name and backend role. */
export const ADMIN_USER = 'admin';

/** Where the TLS files go, relative to the node's config folder (the plugin reads only below it). */
export const TLS_FILES = {
  ca: 'tls/root-ca.pem',
  nodeCert: 'tls/node.pem',
  nodeKey: 'tls/node-key.pem',
  adminCert: 'tls/admin.pem',
  adminKey: 'tls/admin-key.pem',
} as const;

const SECURITY_DIR = 'opensearch-security';

/** What the node is started with. */
export interface SecurityConfig {
  readonly settings: Readonly<Record<string, string | boolean>>;
  /** Relative to the node's config folder. */
  readonly files: Readonly<Record<string, string>>;
  /** Every user's credentials, the admin's included. */
  readonly credentials: ReadonlyMap<string, Credentials>;
}

/** A YAML flow sequence of quoted strings (DNs hold commas). */
function list(values: readonly string[]): string {
  return JSON.stringify(values);
}

function yml(type: string, entries: Record<string, unknown>): string {
  return `${JSON.stringify({ _meta: { type, config_version: 2 }, ...entries }, null, 2)}\n`;
}

/**
 * Amazon OpenSearch Service's built-in roles that the open-source plugin lacks. `security_manager`: the security
 * REST API (https://docs.aws.amazon.com/opensearch-service/latest/developerguide/fgac.html#fgac-more-masters),
 * given here the way the plugin gives a role the whole API: by naming it in `plugins.security.restapi.roles_enabled`.
 * Not with `restapi:admin/*` cluster permissions: the 2.19 plugin refuses every REST change to the mapping of a role
 * that holds one ("Access denied", even for the admin certificate; 2.11 let an admin with
 * `plugins.security.restapi.admin.enabled` do it), and kfek maps people to security_manager as a domain's master
 * user may. `opensearch_dashboards_user`: Dashboards' own indices, as the plugin's `kibana_user` has it.
 */
const AWS_BUILT_IN_ROLES = {
  security_manager: {
    reserved: true,
    description:
      'As on Amazon OpenSearch Service: manage users, roles and mappings with the security REST API',
    cluster_permissions: [],
  },
  opensearch_dashboards_user: {
    reserved: true,
    description: 'As on Amazon OpenSearch Service: the minimum permissions for a Dashboards user',
    cluster_permissions: ['cluster_composite_ops'],
    index_permissions: [
      {
        index_patterns: [
          '.kibana',
          '.kibana-6',
          '.kibana_*',
          '.opensearch_dashboards',
          '.opensearch_dashboards_*',
        ],
        allowed_actions: ['read', 'delete', 'manage', 'index'],
      },
      { index_patterns: ['.tasks', '.management-beats'], allowed_actions: ['indices_all'] },
    ],
  },
};

/** Builds the settings and files; hashes a fresh random password per user. */
export async function buildSecurityConfig(
  tls: TlsMaterial,
  users: readonly SecuredUser[],
): Promise<SecurityConfig> {
  const all: SecuredUser[] = [{ name: ADMIN_USER, backendRoles: [ADMIN_USER] }, ...users];
  const names = all.map((u) => u.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) {
    throw new Error(`The secured node's users must have distinct names; "${duplicate}" is given twice.`);
  }
  const credentials = new Map<string, Credentials>();
  const internalUsers: Record<string, unknown> = {};
  for (const user of all) {
    const password = randomBytes(18).toString('base64url');
    credentials.set(user.name, { username: user.name, password });
    internalUsers[user.name] = {
      // Cost 10: these users live as long as one local node.
      hash: await bcrypt.hash(password, 10),
      reserved: false,
      backend_roles: [...user.backendRoles],
      description: user.name === ADMIN_USER ? 'kfek local admin' : 'kfek local test user',
    };
  }
  const settings: Record<string, string | boolean> = {
    'plugins.security.ssl.transport.pemcert_filepath': TLS_FILES.nodeCert,
    'plugins.security.ssl.transport.pemkey_filepath': TLS_FILES.nodeKey,
    'plugins.security.ssl.transport.pemtrustedcas_filepath': TLS_FILES.ca,
    'plugins.security.ssl.transport.enforce_hostname_verification': false,
    'plugins.security.ssl.http.enabled': true,
    'plugins.security.ssl.http.pemcert_filepath': TLS_FILES.nodeCert,
    'plugins.security.ssl.http.pemkey_filepath': TLS_FILES.nodeKey,
    'plugins.security.ssl.http.pemtrustedcas_filepath': TLS_FILES.ca,
    'plugins.security.allow_default_init_securityindex': true,
    'plugins.security.authcz.admin_dn': list([tls.admin.dn]),
    'plugins.security.nodes_dn': list([tls.node.dn]),
    // Roles whose members may use the security REST API (roles, mappings, audit): all of it. This is what makes
    // security_manager the security managers' role (see AWS_BUILT_IN_ROLES).
    'plugins.security.restapi.roles_enabled': list(['all_access', 'security_manager']),
    // Audit events go to the node's own `security-auditlog-*` indices, where a test can read them.
    'plugins.security.audit.type': 'internal_opensearch',
    'plugins.security.system_indices.enabled': true,
  };
  const files: Record<string, string> = {
    [TLS_FILES.ca]: tls.ca.certPem,
    [TLS_FILES.nodeCert]: tls.node.certPem,
    [TLS_FILES.nodeKey]: tls.node.keyPem,
    [TLS_FILES.adminCert]: tls.admin.certPem,
    [TLS_FILES.adminKey]: tls.admin.keyPem,
    [`${SECURITY_DIR}/config.yml`]: yml('config', {
      config: {
        dynamic: {
          http: { anonymous_auth_enabled: false },
          authc: {
            basic_internal_auth_domain: {
              description: 'HTTP basic authentication against the internal users',
              http_enabled: true,
              transport_enabled: true,
              order: 0,
              http_authenticator: { type: 'basic', challenge: true },
              authentication_backend: { type: 'intern' },
            },
          },
          authz: {},
        },
      },
    }),
    [`${SECURITY_DIR}/internal_users.yml`]: yml('internalusers', internalUsers),
    [`${SECURITY_DIR}/roles.yml`]: yml('roles', AWS_BUILT_IN_ROLES),
    [`${SECURITY_DIR}/roles_mapping.yml`]: yml('rolesmapping', {
      all_access: { reserved: false, backend_roles: [ADMIN_USER], description: 'The local admin' },
      security_manager: { reserved: false, backend_roles: [ADMIN_USER], description: 'The local admin' },
    }),
  };
  return { settings, files, credentials };
}
