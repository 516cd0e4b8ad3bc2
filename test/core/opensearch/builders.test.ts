/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "expectValid"] }] -- expectValid wraps expect. */
/**
 * The pure builders. ISM, security and Dashboards are not in the local OpenSearch node, so their payloads are
 * validated here against strict JSON schemas written from the documented request bodies:
 * - ISM: https://docs.opensearch.org/latest/im-plugin/ism/policies/ (states, actions, transitions, ism_template;
 *   plus Amazon OpenSearch Service's warm_migration action)
 * - Security: https://docs.opensearch.org/latest/security/access-control/api/ (roles, rolesmapping) and
 *   https://docs.opensearch.org/latest/security/access-control/default-action-groups/
 * - Dashboards: https://docs.opensearch.org/latest/dashboards/management/saved-objects-apis/bulk-create/
 * The schemas forbid unknown keys, so a typo in a builder fails here instead of on a deployed domain.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import { buildSavedObjects, type SavedObject } from '../../../core/opensearch/dashboards';
import { OpenSearchSpecError } from '../../../core/opensearch/errors';
import { buildIndexTemplate } from '../../../core/opensearch/index-template';
import { KEYWORD_IGNORE_ABOVE, MIN_TOTAL_FIELDS_LIMIT } from '../../../core/opensearch/mappings';
import { buildIngestPipeline, documentIdFor, routingFor } from '../../../core/opensearch/ingest-pipeline';
import { buildIsmPolicy, isSamePolicy } from '../../../core/opensearch/ism-policy';
import {
  buildReaderRole,
  buildSecurityRoles,
  buildWriterRole,
  DASHBOARDS_USER_ROLE,
  mergeRoleMapping,
} from '../../../core/opensearch/security';
import {
  canonicalJson,
  contentHash,
  resolveOpenSearchSpec,
  type OpenSearchSpecInput,
} from '../../../core/opensearch/spec';

const ajv = new Ajv({ allErrors: true, strict: true });

function compile(schema: object): ValidateFunction {
  return ajv.compile(schema);
}

function expectValid(validate: ValidateFunction, value: unknown): void {
  const ok = validate(value);
  expect(ok ? [] : validate.errors).toEqual([]);
}

const stringArray = { type: 'array', items: { type: 'string', minLength: 1 } } as const;
const TIME_VALUE = '^[0-9]+(d|h|m|s|ms|micros|nanos)$';

// Actions documented for ISM, plus the ones Amazon OpenSearch Service adds (UltraWarm/cold storage).
const ISM_ACTIONS = [
  'rollover',
  'force_merge',
  'read_only',
  'read_write',
  'replica_count',
  'shrink',
  'close',
  'open',
  'delete',
  'notification',
  'snapshot',
  'index_priority',
  'allocation',
  'rollup',
  'transform',
  'alias',
  'warm_migration',
  'cold_migration',
  'cold_delete',
];

const ismPolicySchema = compile({
  type: 'object',
  additionalProperties: false,
  required: ['policy'],
  properties: {
    policy: {
      type: 'object',
      additionalProperties: false,
      required: ['description', 'default_state', 'states'],
      properties: {
        description: { type: 'string' },
        default_state: { type: 'string' },
        error_notification: { type: 'object' },
        states: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'actions', 'transitions'],
            properties: {
              name: { type: 'string', minLength: 1 },
              actions: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  minProperties: 1,
                  properties: {
                    timeout: { type: 'string', pattern: TIME_VALUE },
                    retry: { type: 'object' },
                    ...Object.fromEntries(ISM_ACTIONS.map((a) => [a, { type: 'object' }])),
                  },
                },
              },
              transitions: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['state_name'],
                  properties: {
                    state_name: { type: 'string' },
                    conditions: {
                      type: 'object',
                      additionalProperties: false,
                      minProperties: 1,
                      maxProperties: 1,
                      properties: {
                        min_index_age: { type: 'string', pattern: TIME_VALUE },
                        min_rollover_age: { type: 'string', pattern: TIME_VALUE },
                        min_doc_count: { type: 'integer', minimum: 1 },
                        min_size: { type: 'string' },
                        cron: { type: 'object' },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        ism_template: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['index_patterns'],
            properties: { index_patterns: stringArray, priority: { type: 'integer', minimum: 0 } },
          },
        },
      },
    },
  },
});

// Default action groups (cluster, index, tenant) from the documentation page.
const ACTION_GROUPS = new Set([
  'unlimited',
  'cluster_all',
  'cluster_monitor',
  'cluster_composite_ops_ro',
  'cluster_composite_ops',
  'manage_snapshots',
  'cluster_manage_pipelines',
  'cluster_manage_index_templates',
  'indices_all',
  'get',
  'read',
  'write',
  'delete',
  'crud',
  'search',
  'suggest',
  'create_index',
  'indices_monitor',
  'index',
  'data_access',
  'manage_aliases',
  'manage',
  'kibana_all_read',
  'kibana_all_write',
]);
const PERMISSION = '^(cluster|indices):[a-z_]+(/[a-z_*\\[\\]]+)*\\*?$';

const roleSchema = compile({
  type: 'object',
  additionalProperties: false,
  required: ['cluster_permissions', 'index_permissions', 'tenant_permissions'],
  properties: {
    description: { type: 'string' },
    cluster_permissions: stringArray,
    index_permissions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['index_patterns', 'allowed_actions'],
        properties: {
          index_patterns: { ...stringArray, minItems: 1 },
          dls: { type: 'string' },
          fls: stringArray,
          masked_fields: stringArray,
          allowed_actions: { ...stringArray, minItems: 1 },
        },
      },
    },
    tenant_permissions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tenant_patterns', 'allowed_actions'],
        properties: { tenant_patterns: stringArray, allowed_actions: stringArray },
      },
    },
  },
});

const roleMappingSchema = compile({
  type: 'object',
  additionalProperties: false,
  required: ['backend_roles', 'hosts', 'users'],
  properties: {
    backend_roles: stringArray,
    and_backend_roles: stringArray,
    hosts: stringArray,
    users: stringArray,
    description: { type: 'string' },
  },
});

const searchSourceMeta = {
  type: 'object',
  additionalProperties: false,
  required: ['searchSourceJSON'],
  properties: { searchSourceJSON: { type: 'string' } },
};
const savedObjectSchema = compile({
  type: 'object',
  additionalProperties: false,
  required: ['type', 'id', 'attributes', 'references'],
  properties: {
    type: { enum: ['index-pattern', 'search', 'visualization', 'dashboard'] },
    id: { type: 'string', pattern: '^[a-z0-9-]+$' },
    attributes: { type: 'object' },
    references: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'type', 'id'],
        properties: { name: { type: 'string' }, type: { type: 'string' }, id: { type: 'string' } },
      },
    },
  },
  allOf: [
    {
      if: { properties: { type: { const: 'index-pattern' } } },
      then: {
        properties: {
          attributes: {
            type: 'object',
            additionalProperties: false,
            required: ['title', 'timeFieldName'],
            properties: { title: { type: 'string' }, timeFieldName: { type: 'string' } },
          },
        },
      },
    },
    {
      if: { properties: { type: { const: 'search' } } },
      then: {
        properties: {
          attributes: {
            type: 'object',
            additionalProperties: false,
            required: ['title', 'columns', 'sort', 'kibanaSavedObjectMeta'],
            properties: {
              title: { type: 'string' },
              description: { type: 'string' },
              columns: stringArray,
              sort: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
              version: { type: 'integer' },
              kibanaSavedObjectMeta: searchSourceMeta,
            },
          },
        },
      },
    },
    {
      if: { properties: { type: { const: 'visualization' } } },
      then: {
        properties: {
          attributes: {
            type: 'object',
            additionalProperties: false,
            required: ['title', 'visState', 'uiStateJSON', 'kibanaSavedObjectMeta'],
            properties: {
              title: { type: 'string' },
              description: { type: 'string' },
              version: { type: 'integer' },
              visState: { type: 'string' },
              uiStateJSON: { type: 'string' },
              kibanaSavedObjectMeta: searchSourceMeta,
            },
          },
        },
      },
    },
    {
      if: { properties: { type: { const: 'dashboard' } } },
      then: {
        properties: {
          attributes: {
            type: 'object',
            additionalProperties: false,
            required: ['title', 'panelsJSON', 'optionsJSON', 'timeRestore', 'kibanaSavedObjectMeta'],
            properties: {
              title: { type: 'string' },
              description: { type: 'string' },
              version: { type: 'integer' },
              panelsJSON: { type: 'string' },
              optionsJSON: { type: 'string' },
              timeRestore: { type: 'boolean' },
              timeFrom: { type: 'string' },
              timeTo: { type: 'string' },
              refreshInterval: { type: 'object' },
              kibanaSavedObjectMeta: searchSourceMeta,
            },
          },
        },
      },
    },
  ],
});

// PUT _index_template body (composable template).
const indexTemplateSchema = compile({
  type: 'object',
  additionalProperties: false,
  required: ['index_patterns', 'template'],
  properties: {
    index_patterns: { ...stringArray, minItems: 1 },
    priority: { type: 'integer', minimum: 0 },
    version: { type: 'integer' },
    composed_of: stringArray,
    _meta: { type: 'object' },
    data_stream: { type: 'object' },
    template: {
      type: 'object',
      additionalProperties: false,
      properties: { settings: { type: 'object' }, mappings: { type: 'object' }, aliases: { type: 'object' } },
    },
  },
});

const input: OpenSearchSpecInput = {
  indexPrefix: 'logs',
  indexTemplate: { shards: 3, replicas: 2, totalFieldsLimit: 1500 },
  retention: { deleteAfterDays: 30 },
  access: {
    firehoseRoleArn: 'arn:aws:iam::123456789012:role/kfek-firehose',
    readerBackendRoles: ['arn:aws:iam::123456789012:role/log-readers'],
  },
};
const spec = resolveOpenSearchSpec(input);

/** Looks a dotted field up in the template's explicit mappings. */
function mappedType(path: string): unknown {
  const template = buildIndexTemplate(spec) as {
    template: { mappings: { properties: Record<string, unknown> } };
  };
  let node: unknown = { properties: template.template.mappings.properties };
  for (const part of path.split('.')) {
    node = ((node as { properties?: Record<string, unknown> }).properties ?? {})[part];
  }
  return (node as { type?: unknown } | undefined)?.type;
}

describe('the schemas themselves', () => {
  test('reject typos and unknown actions (so passing them means something)', () => {
    const policy = buildIsmPolicy(spec);
    const typo = { policy: { ...policy.policy, default_sate: 'hot' } };
    expect(ismPolicySchema(typo)).toBe(false);
    const unknownAction = {
      policy: { ...policy.policy, states: [{ name: 'hot', actions: [{ shred: {} }], transitions: [] }] },
    };
    expect(ismPolicySchema(unknownAction)).toBe(false);
    const badAge = {
      policy: {
        ...policy.policy,
        states: [
          {
            name: 'hot',
            actions: [],
            transitions: [{ state_name: 'x', conditions: { min_index_age: '30 days' } }],
          },
        ],
      },
    };
    expect(ismPolicySchema(badAge)).toBe(false);
    expect(roleSchema({ ...buildWriterRole(spec), index_permission: [] })).toBe(false);
    expect(roleMappingSchema({ backend_roles: [], hosts: [], user: [] })).toBe(false);
    expect(
      savedObjectSchema({ type: 'index-pattern', id: 'x', attributes: { title: 'logs-*' }, references: [] }),
    ).toBe(false);
    expect(indexTemplateSchema({ index_patterns: ['logs-*'], template: { setting: {} } })).toBe(false);
  });
});

describe('resolveOpenSearchSpec', () => {
  test('applies the defaults', () => {
    expect(resolveOpenSearchSpec({ indexPrefix: 'logs' })).toEqual({
      name: 'kfek',
      indexPrefix: 'logs',
      indexPattern: 'logs-*',
      indexTemplate: {
        shards: 1,
        replicas: 1,
        totalFieldsLimit: 1000,
        refreshSeconds: 5,
        slowSearchWarnMs: 5000,
        slowSearchInfoMs: 2000,
        slowIndexWarnMs: 5000,
        slowIndexInfoMs: 2000,
      },
      retention: { deleteAfterDays: 30 },
      auditLogs: true,
      access: { readerBackendRoles: [], readerUsers: [], adminBackendRoles: [], reconcileBackendRoles: [] },
      names: {
        indexTemplate: 'kfek-logs',
        ingestPipeline: 'kfek-logs-document-id',
        ismPolicy: 'kfek-logs-retention',
        writerRole: 'kfek_writer',
        readerRole: 'kfek_reader',
        reconcileRole: 'kfek_reconcile',
      },
      routes: [],
      keepRetiredHours: 0,
    });
  });

  test.each([
    [{ indexPrefix: 'Logs' }, /indexPrefix is "Logs"; expected a lowercase OpenSearch index name prefix/],
    [{ indexPrefix: '_logs' }, /indexPrefix/],
    [{ indexPrefix: 'logs*' }, /indexPrefix/],
    [
      { indexPrefix: 'logs', indexTemplate: { shards: 0 } },
      /indexTemplate\.shards is 0; expected an integer from 1 to 1024\. One shard per 10-50 GB/,
    ],
    [
      { indexPrefix: 'logs', indexTemplate: { replicas: 1.5 } },
      /indexTemplate\.replicas is 1\.5; expected an integer from 0 to 15/,
    ],
    [
      { indexPrefix: 'logs', indexTemplate: { totalFieldsLimit: 50 } },
      new RegExp(
        `totalFieldsLimit is 50, too low for kfek's own documents.*Use at least ${MIN_TOTAL_FIELDS_LIMIT}`,
      ),
    ],
    // Between the old floor (100) and what kfek's own documents need: the spec refuses it as the config does.
    [
      { indexPrefix: 'logs', indexTemplate: { totalFieldsLimit: MIN_TOTAL_FIELDS_LIMIT - 1 } },
      new RegExp(`totalFieldsLimit is ${MIN_TOTAL_FIELDS_LIMIT - 1}, too low for kfek's own documents`),
    ],
    [
      { indexPrefix: 'logs', indexTemplate: { totalFieldsLimit: 100_001 } },
      /totalFieldsLimit is 100001; expected an integer from \d+ to 100000\. Keep it near 1000/,
    ],
    [
      { indexPrefix: 'logs', indexTemplate: { refreshSeconds: 0 } },
      /indexTemplate\.refreshSeconds is 0; expected an integer from 1 to 3600/,
    ],
    [
      { indexPrefix: 'logs', indexTemplate: { slowSearchWarnMs: 0 } },
      /indexTemplate\.slowSearchWarnMs is 0; expected an integer from 1 to 3600000\. Use milliseconds/,
    ],
    [
      { indexPrefix: 'logs', indexTemplate: { slowIndexInfoMs: 5000 } },
      /indexTemplate.slowIndexInfoMs \(5000\) must be below slowIndexWarnMs \(5000\)/,
    ],
    [
      { indexPrefix: 'logs', retention: { deleteAfterDays: 0 } },
      /retention\.deleteAfterDays is 0; expected an integer from 1 to 36500\. Set how many days/,
    ],
    [
      { indexPrefix: 'logs', retention: { deleteAfterDays: 36_501 } },
      /retention\.deleteAfterDays is 36501; expected an integer from 1 to 36500/,
    ],
    [
      { indexPrefix: 'logs', retention: { deleteAfterDays: 7, warmAfterDays: 9 } },
      /retention\.warmAfterDays is 9; expected an integer from 1 to 6\. The warm move must come before deletion/,
    ],
    [{ indexPrefix: 'logs', name: 'Kfek' }, /name is "Kfek"; expected lowercase letters/],
    [
      { indexPrefix: 'logs', access: { readerUsers: [''] } },
      /access\.readerUsers\[0\] is ""; expected an IAM role ARN or a group name/,
    ],
  ] as [OpenSearchSpecInput, RegExp][])('fails when the spec is invalid: %j', (bad, message) => {
    expect(() => resolveOpenSearchSpec(bad)).toThrow(OpenSearchSpecError);
    expect(() => resolveOpenSearchSpec(bad)).toThrow(message);
  });

  test('canonical JSON and hashes ignore key order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(contentHash({ a: 1, b: 2 })).toBe(contentHash({ b: 2, a: 1 }));
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: 2 }));
  });
});

describe('buildIndexTemplate', () => {
  test('is a valid composable index template for the configured pattern', () => {
    expectValid(indexTemplateSchema, buildIndexTemplate(spec));
  });

  test('takes shards, replicas and the total-fields limit from config and compresses', () => {
    expect(buildIndexTemplate(spec)).toMatchObject({
      index_patterns: ['logs-*'],
      template: {
        settings: {
          index: {
            number_of_shards: 3,
            number_of_replicas: 2,
            codec: 'best_compression',
            mapping: { total_fields: { limit: 1500 }, ignore_malformed: true },
          },
        },
      },
    });
  });

  test('takes refresh_interval from config (docs/latency.md)', () => {
    const realtime = resolveOpenSearchSpec({ indexPrefix: 'logs', indexTemplate: { refreshSeconds: 1 } });
    expect(buildIndexTemplate(realtime)).toMatchObject({
      template: { settings: { index: { refresh_interval: '1s' } } },
    });
  });

  test('field limits: deep app objects and the app fields past the budget are flat_object (docs/field-limits.md)', () => {
    const template = buildIndexTemplate(spec) as {
      template: { mappings: { dynamic_templates: Record<string, Record<string, unknown>>[] } };
    };
    // The first dynamic template wins: deep objects must be caught before any other rule.
    expect(template.template.mappings.dynamic_templates[0]).toEqual({
      app_deep_objects: {
        match_mapping_type: 'object',
        path_match: '*.*.*',
        mapping: { type: 'flat_object' },
      },
    });
    expect(mappedType('kfek.overflow')).toBe('flat_object');
  });

  test('maps the fields the transform writes', () => {
    expect(mappedType('@timestamp')).toBe('date');
    expect(mappedType('message')).toBe('text');
    for (const keyword of [
      'level',
      'logger',
      'thread',
      'cloudwatch.logGroup',
      'cloudwatch.logStream',
      'lambda.requestId',
    ]) {
      expect([keyword, mappedType(keyword)]).toEqual([keyword, 'keyword']);
    }
    for (const number of ['lambda.durationMs', 'lambda.billedDurationMs', 'lambda.maxMemoryUsedMb']) {
      expect([number, mappedType(number)]).toEqual([number, 'double']);
    }
  });

  test('dynamic templates: lambda.*Ms and *Mb numeric, cloudwatch.* keyword, prose text without norms, other strings keyword without doc values', () => {
    const template = buildIndexTemplate(spec) as {
      template: {
        mappings: { dynamic_templates: Record<string, Record<string, unknown>>[]; date_detection: boolean };
      };
    };
    const byName = Object.assign({}, ...template.template.mappings.dynamic_templates) as Record<
      string,
      Record<string, unknown>
    >;
    expect(byName.lambda_millis).toEqual({ path_match: 'lambda.*Ms', mapping: { type: 'double' } });
    expect(byName.lambda_megabytes_mb).toEqual({ path_match: 'lambda.*Mb', mapping: { type: 'double' } });
    expect(byName.cloudwatch_keywords).toMatchObject({
      path_match: 'cloudwatch.*',
      mapping: { type: 'keyword' },
    });
    expect(byName.strings_as_keywords).toEqual({
      match_mapping_type: 'string',
      mapping: { type: 'keyword', ignore_above: KEYWORD_IGNORE_ABOVE, doc_values: false },
    });
    expect(byName.prose_strings.mapping).toEqual({ type: 'text', norms: false });
    const prose = new RegExp(String(byName.prose_strings.match));
    expect(
      ['errorMessage', 'message', 'stackTrace', 'error.stack', 'msg', 'description'].map((f) =>
        prose.test(f.split('.').pop() ?? ''),
      ),
    ).toEqual([true, true, true, true, true, true]);
    expect(['userId', 'path', 'status'].some((f) => prose.test(f))).toBe(false);
    // The catch-all must come last: dynamic templates match in order.
    expect(Object.keys(template.template.mappings.dynamic_templates.at(-1) ?? {})).toEqual([
      'strings_as_keywords',
    ]);
    expect(template.template.mappings.date_detection).toBe(false);
  });

  test('carries a content hash that changes with the content only', () => {
    const meta = (s: OpenSearchSpecInput): unknown =>
      (buildIndexTemplate(resolveOpenSearchSpec(s)) as { _meta: Record<string, unknown> })._meta
        .kfek_content_sha256;
    expect(meta(input)).toBe(meta({ ...input }));
    expect(meta(input)).not.toBe(meta({ ...input, indexTemplate: { shards: 1 } }));
  });

  test('matches the snapshot', () => {
    expect(buildIndexTemplate(resolveOpenSearchSpec({ indexPrefix: 'logs' }))).toMatchSnapshot();
  });
});

describe('buildIsmPolicy', () => {
  test('is a valid ISM policy: hot, then delete after deleteAfterDays, attached to new log indices', () => {
    const policy = buildIsmPolicy(spec);
    expectValid(ismPolicySchema, policy);
    expect(policy.policy).toMatchObject({
      default_state: 'hot',
      states: [
        {
          name: 'hot',
          actions: [],
          transitions: [{ state_name: 'delete', conditions: { min_index_age: '30d' } }],
        },
        { name: 'delete', actions: [{ delete: {} }], transitions: [] },
      ],
      ism_template: [{ index_patterns: ['logs-*'], priority: 104 }],
    });
  });

  test('with warmAfterDays, moves indices to warm storage first', () => {
    const policy = buildIsmPolicy(
      resolveOpenSearchSpec({ ...input, retention: { deleteAfterDays: 90, warmAfterDays: 7 } }),
    );
    expectValid(ismPolicySchema, policy);
    expect(policy.policy.states.map((s) => [s.name, s.actions, s.transitions])).toEqual([
      ['hot', [], [{ state_name: 'warm', conditions: { min_index_age: '7d' } }]],
      ['warm', [{ warm_migration: {} }], [{ state_name: 'delete', conditions: { min_index_age: '90d' } }]],
      ['delete', [{ delete: {} }], []],
    ]);
  });

  test('every transition targets a state that exists, and the default state exists', () => {
    for (const retention of [{ deleteAfterDays: 3 }, { deleteAfterDays: 30, warmAfterDays: 2 }]) {
      const { policy } = buildIsmPolicy(resolveOpenSearchSpec({ indexPrefix: 'logs', retention }));
      const names = policy.states.map((s) => s.name);
      expect(names).toContain(policy.default_state);
      for (const t of policy.states.flatMap((s) => s.transitions)) {
        expect(names).toContain(t.state_name);
      }
    }
  });

  test('recognizes its own stored policy by the hash in the description, despite server-side defaults', () => {
    const desired = buildIsmPolicy(spec);
    const stored = { ...desired.policy, policy_id: 'x', last_updated_time: 1, schema_version: 21 };
    expect(isSamePolicy(stored, desired)).toBe(true);
    expect(
      isSamePolicy(
        stored,
        buildIsmPolicy(resolveOpenSearchSpec({ ...input, retention: { deleteAfterDays: 31 } })),
      ),
    ).toBe(false);
    expect(isSamePolicy(undefined, desired)).toBe(false);
  });

  test('matches the snapshot', () => {
    expect(
      buildIsmPolicy(resolveOpenSearchSpec({ indexPrefix: 'logs', retention: { deleteAfterDays: 14 } })),
    ).toMatchSnapshot();
  });
});

describe('security roles and mappings', () => {
  const permissionsOf = (role: ReturnType<typeof buildWriterRole>): string[] => [
    ...role.cluster_permissions,
    ...role.index_permissions.flatMap((p) => p.allowed_actions),
    ...role.tenant_permissions.flatMap((p) => p.allowed_actions),
  ];

  test('roles and mappings are valid security API bodies with documented permissions', () => {
    const entries = buildSecurityRoles(spec);
    const roles = entries.flatMap((e) => (e.role === undefined ? [] : [e.role]));
    const mappings = entries.flatMap((e) => (e.mapping === undefined ? [] : [e.mapping]));
    expect([roles.length, mappings.length]).toEqual([2, 3]);
    roles.forEach((role) => expectValid(roleSchema, role));
    mappings.forEach((mapping) => expectValid(roleMappingSchema, mapping));
    const pattern = new RegExp(PERMISSION);
    const undocumented = roles
      .flatMap(permissionsOf)
      .filter((p) => !ACTION_GROUPS.has(p) && !pattern.test(p));
    expect(undocumented).toEqual([]);
  });

  test('the writer can create log indices and bulk-write them, and nothing more', () => {
    const writer = buildWriterRole(spec);
    expect(writer.index_permissions).toEqual([
      {
        index_patterns: ['logs-*'],
        allowed_actions: [
          'indices:admin/create',
          'indices:admin/mapping/put',
          'indices:admin/mapping/auto_put',
          'indices:data/write/index',
          'indices:data/write/bulk*',
          'indices:monitor/stats',
          'indices:monitor/settings/get',
          'indices:admin/mappings/get',
        ],
      },
      // Firehose's destination checks (`GET _stats`, `GET _all/_settings`) name every index: statistics and
      // settings only there.
      { index_patterns: ['*'], allowed_actions: ['indices:monitor/stats', 'indices:monitor/settings/get'] },
    ]);
    // The indexer reads its route table from kfek's pipeline (issue 41): the get action alone, no pipeline change.
    expect(writer.cluster_permissions).toEqual([
      'cluster_monitor',
      'indices:data/write/bulk',
      'cluster:admin/ingest/pipeline/get',
    ]);
    const all = permissionsOf(writer);
    for (const broad of [
      '*',
      'unlimited',
      'indices_all',
      'cluster_all',
      'crud',
      'write',
      'delete',
      'manage',
    ]) {
      expect(all).not.toContain(broad);
    }
    expect(all.some((p) => p.includes('delete') || p.includes('update'))).toBe(false);
  });

  test('the reader can only read the log indices and view the shared Dashboards tenant', () => {
    const reader = buildReaderRole(spec);
    expect(reader).toMatchObject({
      cluster_permissions: ['cluster_composite_ops_ro'],
      index_permissions: [{ index_patterns: ['logs-*'], allowed_actions: ['read'] }],
      tenant_permissions: [{ tenant_patterns: ['global_tenant'], allowed_actions: ['kibana_all_read'] }],
    });
  });

  test('maps Firehose to the writer and the configured readers to the reader and the Dashboards user role', () => {
    const byName = new Map(buildSecurityRoles(spec).map((r) => [r.name, r]));
    expect(byName.get('kfek_writer')?.mapping?.backend_roles).toEqual([
      'arn:aws:iam::123456789012:role/kfek-firehose',
    ]);
    expect(byName.get('kfek_reader')?.mapping?.backend_roles).toEqual([
      'arn:aws:iam::123456789012:role/log-readers',
    ]);
    expect(byName.get(DASHBOARDS_USER_ROLE)).toEqual({
      name: DASHBOARDS_USER_ROLE,
      mapping: { backend_roles: ['arn:aws:iam::123456789012:role/log-readers'], hosts: [], users: [] },
    });
  });

  test('maps admin backend roles to all_access and security_manager without redefining those built-in roles', () => {
    // GIVEN
    const admins = ['arn:aws:iam::123456789012:role/Admin', 'arn:aws:iam::123456789012:user/alice'];
    // WHEN
    const entries = buildSecurityRoles(
      resolveOpenSearchSpec({ ...input, access: { ...input.access, adminBackendRoles: admins } }),
    );
    // THEN
    const admin = entries.filter((e) => e.name === 'all_access' || e.name === 'security_manager');
    expect(admin).toEqual([
      { name: 'all_access', mapping: { backend_roles: admins, hosts: [], users: [] } },
      { name: 'security_manager', mapping: { backend_roles: admins, hosts: [], users: [] } },
    ]);
    admin.forEach((e) => expectValid(roleMappingSchema, e.mapping));
    // The master user already in the all_access mapping stays: mappings are merged, never replaced.
    const master = 'arn:aws:iam::123456789012:role/kfek-sandbox-search-OpenSearchAdminRole';
    expect(
      mergeRoleMapping({ backend_roles: [master], hosts: [], users: [] }, admin[0].mapping!)?.backend_roles,
    ).toEqual([...admins, master].sort());
  });

  test('fails when an admin backend role is empty', () => {
    expect(() => resolveOpenSearchSpec({ indexPrefix: 'logs', access: { adminBackendRoles: [''] } })).toThrow(
      /access\.adminBackendRoles\[0\] is ""; expected an IAM role ARN or a group name/,
    );
  });

  test('without readers or a Firehose role, creates the roles but no mappings', () => {
    const entries = buildSecurityRoles(resolveOpenSearchSpec({ indexPrefix: 'logs' }));
    expect(entries.map((e) => [e.name, e.mapping])).toEqual([
      ['kfek_writer', undefined],
      ['kfek_reader', undefined],
    ]);
  });

  test('mergeRoleMapping adds missing members, keeps others, and reports no change when complete', () => {
    const desired = { backend_roles: ['b'], hosts: [], users: ['u'] };
    expect(mergeRoleMapping(undefined, desired)).toEqual({ backend_roles: ['b'], hosts: [], users: ['u'] });
    expect(
      mergeRoleMapping({ backend_roles: ['a'], users: [], hosts: [], reserved: false }, desired),
    ).toEqual({
      backend_roles: ['a', 'b'],
      hosts: [],
      users: ['u'],
    });
    expect(mergeRoleMapping({ backend_roles: ['b', 'a'], users: ['u'], hosts: [] }, desired)).toBeUndefined();
  });

  test('matches the snapshot', () => {
    expect(buildSecurityRoles(spec)).toMatchSnapshot();
  });
});

describe('buildSavedObjects', () => {
  const objects = buildSavedObjects(spec);
  const byType = (type: SavedObject['type']): SavedObject[] => objects.filter((o) => o.type === type);

  test('every object is a valid _bulk_create entry', () => {
    for (const object of objects) {
      expectValid(savedObjectSchema, object);
    }
  });

  test('the index pattern covers the log indices with @timestamp as time field', () => {
    expect(byType('index-pattern')).toEqual([
      {
        type: 'index-pattern',
        id: 'kfek-logs-index-pattern',
        attributes: { title: 'logs-*', timeFieldName: '@timestamp' },
        references: [],
      },
    ]);
  });

  test('every reference resolves to an object of the bundle with that type, referenced objects come first', () => {
    objects.forEach((object, position) => {
      for (const ref of object.references) {
        const target = objects.findIndex((o) => o.id === ref.id && o.type === ref.type);
        expect([object.id, ref.name, target >= 0 && target < position]).toEqual([object.id, ref.name, true]);
      }
    });
  });

  test('embedded JSON parses, and index and panel reference names match the references', () => {
    const problems: string[] = [];
    let searchSources = 0;
    let panelCount = 0;
    for (const object of objects) {
      const attributes = object.attributes;
      const meta = attributes.kibanaSavedObjectMeta as { searchSourceJSON: string } | undefined;
      const refNames = object.references.map((r) => r.name);
      if (meta !== undefined) {
        searchSources++;
        const source = JSON.parse(meta.searchSourceJSON) as {
          indexRefName?: string;
          query: { language: string };
        };
        if (source.query.language !== 'kuery') {
          problems.push(`${object.id}: query language ${source.query.language}`);
        }
        if (source.indexRefName !== undefined && !refNames.includes(source.indexRefName)) {
          problems.push(`${object.id}: indexRefName ${source.indexRefName} has no reference`);
        }
      }
      if (typeof attributes.panelsJSON === 'string') {
        const panels = JSON.parse(attributes.panelsJSON) as { panelRefName: string }[];
        panelCount += panels.length;
        if (
          panels
            .map((p) => p.panelRefName)
            .sort()
            .join() !== [...refNames].sort().join()
        ) {
          problems.push(`${object.id}: panel references do not match`);
        }
      }
      if (typeof attributes.visState === 'string') {
        const vis = JSON.parse(attributes.visState) as { title?: unknown; type?: unknown };
        if (vis.title !== attributes.title || typeof vis.type !== 'string') {
          problems.push(`${object.id}: visState title/type`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect({ searchSources, panelCount }).toEqual({ searchSources: 5, panelCount: 3 });
  });

  test('visualizations aggregate on fields the template maps as aggregatable types', () => {
    const aggregatable = new Set(['keyword', 'double', 'long', 'date']);
    const fields = byType('visualization').flatMap((v) => {
      const vis = JSON.parse(String(v.attributes.visState)) as { aggs: { params: { field?: string } }[] };
      return vis.aggs.map((a) => a.params.field).filter((f): f is string => f !== undefined);
    });
    expect(fields.sort()).toEqual(['@timestamp', '@timestamp', 'cloudwatch.logGroup', 'lambda.durationMs']);
    for (const field of fields) {
      expect([field, aggregatable.has(String(mappedType(field)))]).toEqual([field, true]);
    }
  });

  test('the error search and the errors chart query level:ERROR', () => {
    const queries = objects
      .filter((o) => o.id.endsWith('-errors') || o.id.endsWith('-errors-over-time'))
      .map((o) => {
        const meta = o.attributes.kibanaSavedObjectMeta as { searchSourceJSON: string };
        return (JSON.parse(meta.searchSourceJSON) as { query: { query: string } }).query.query;
      });
    expect(queries).toEqual(['level:ERROR', 'level:ERROR']);
  });

  test('matches the snapshot', () => {
    expect(buildSavedObjects(resolveOpenSearchSpec({ indexPrefix: 'logs' }))).toMatchSnapshot();
  });
});

describe('buildIngestPipeline and documentIdFor', () => {
  test('one script that refuses request metadata, routes and sets _id and _routing, in the pipeline the template names as default_pipeline', () => {
    // GIVEN
    const spec = resolveOpenSearchSpec({ indexPrefix: 'logs' });
    // WHEN
    const pipeline = buildIngestPipeline(spec);
    const template = buildIndexTemplate(spec) as {
      template: { settings: { index: Record<string, unknown> } };
    };
    // THEN
    expect(pipeline.processors).toEqual([
      {
        script: expect.objectContaining({
          tag: 'kfek-route-and-id',
          lang: 'painless',
          source: expect.stringMatching(/_if_seq_no.*ctx\._index =.*ctx\._id =.*ctx\._routing =/),
          params: { prefix: 'logs', routes: {} },
        }),
      },
    ]);
    expect(template.template.settings.index.default_pipeline).toBe(spec.names.ingestPipeline);
  });

  test('ids are 16 base64url characters (12 bytes), routings their first 2 (3 beyond 64 shards), and length prefixes keep triples that concatenate alike apart', () => {
    // WHEN
    const a = documentIdFor('/g', 'a|b', 'c');
    const b = documentIdFor('/g', 'a', 'b|c');
    const c = documentIdFor('/g|a', 'b', 'c');
    // THEN
    expect(a).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(routingFor(a)).toBe(a.slice(0, 2));
    expect(routingFor(a, 65)).toBe(a.slice(0, 3));
    expect(new Set([a, b, c]).size).toBe(3);
    expect(documentIdFor('/g', 'a|b', 'c')).toBe(a);
  });
});

describe('aggregatable app fields (indexTemplate.aggregatableFields)', () => {
  test('each path is a keyword with doc values, placed before the prose and catch-all string rules', () => {
    const template = buildIndexTemplate(
      resolveOpenSearchSpec({
        indexPrefix: 'logs',
        indexTemplate: { aggregatableFields: ['status', 'http.*'] },
      }),
    ) as { template: { mappings: { dynamic_templates: Array<Record<string, Record<string, unknown>>> } } };
    const names = template.template.mappings.dynamic_templates.map((t) => Object.keys(t)[0]);
    expect(names.indexOf('aggregatable_0')).toBeLessThan(names.indexOf('prose_strings'));
    expect(names.indexOf('aggregatable_1')).toBeLessThan(names.indexOf('strings_as_keywords'));
    const first =
      template.template.mappings.dynamic_templates[names.indexOf('aggregatable_0')].aggregatable_0;
    expect(first).toEqual({
      path_match: 'status',
      match_mapping_type: 'string',
      mapping: expect.not.objectContaining({ doc_values: false }),
    });
  });

  test('a spec without them is the spec it was (same hash), and the spec refuses what config refuses', () => {
    expect(resolveOpenSearchSpec({ indexPrefix: 'logs', indexTemplate: { aggregatableFields: [] } })).toEqual(
      resolveOpenSearchSpec({ indexPrefix: 'logs' }),
    );
    expect(() =>
      resolveOpenSearchSpec({ indexPrefix: 'logs', indexTemplate: { aggregatableFields: ['kfek.route'] } }),
    ).toThrow(/aggregatableFields\[0\] is "kfek.route": "kfek" is a field kfek maps itself/);
  });
});
