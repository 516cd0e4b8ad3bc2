/**
 * Drift by content (issue 39, core/opensearch/drift.ts): what OpenSearch adds to a stored object compares equal to
 * what kfek rendered, and every real edit differs and is described, live first.
 */
import { describeDrift, sameContent } from '../../../core/opensearch/drift';
import { buildIndexTemplate } from '../../../core/opensearch/index-template';
import { buildIsmPolicy } from '../../../core/opensearch/ism-policy';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';

const spec = resolveOpenSearchSpec({ indexPrefix: 'logs', retention: { deleteAfterDays: 14 } });
const policy = buildIsmPolicy(spec).policy;
const template = buildIndexTemplate(spec);

/** The policy as ISM stores it (with security): ids, timestamps, user, default retries. */
const asStored = {
  policy_id: 'kfek-logs-retention',
  last_updated_time: 1764000000000,
  schema_version: 21,
  error_notification: null,
  user: { name: 'admin', backend_roles: [], roles: ['all_access'] },
  ...policy,
  states: policy.states.map((s) => ({
    ...s,
    actions: s.actions.map((a) => ({ retry: { count: 3, backoff: 'exponential', delay: '1m' }, ...a })),
  })),
  ism_template: policy.ism_template.map((t) => ({ ...t, last_updated_time: 1764000000000 })),
};

describe('drift by content', () => {
  test('an ISM policy as ISM stores it is the policy kfek rendered', () => {
    expect(sameContent('ism-policy', asStored, policy)).toBe(true);
    expect(describeDrift('ism-policy', asStored, policy)).toEqual([]);
  });

  test.each([
    [
      { retry: { count: 9, backoff: 'constant', delay: '1m' } },
      /states\.delete\.actions\[0\]\.retry\.count 9 -> \(none\)/,
    ],
    [{ timeout: '1h' }, /states\.delete\.actions\[0\]\.timeout 1h -> \(none\)/],
  ])('an action given %j by hand differs', (extra, line) => {
    const edited = {
      ...asStored,
      states: asStored.states.map((s) =>
        s.name === 'delete' ? { ...s, actions: s.actions.map((a) => ({ ...a, ...extra })) } : s,
      ),
    };
    expect(sameContent('ism-policy', edited, policy)).toBe(false);
    expect(describeDrift('ism-policy', edited, policy).join('; ')).toMatch(line);
  });

  test('a template as OpenSearch answers it (settings as strings, analysis under index, composed_of) is the same', () => {
    const settings = (template.template as { settings: { index: object; analysis: object } }).settings;
    const answered = {
      ...template,
      composed_of: [],
      template: {
        ...(template.template as object),
        settings: {
          index: JSON.parse(
            JSON.stringify({ ...settings.index, analysis: settings.analysis }),
            (_k, v: unknown) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v),
          ) as unknown,
        },
      },
    };
    expect(sameContent('index-template', answered, template)).toBe(true);
  });

  test('a template that lost its _meta is described by the keys it lost, not by an empty object', () => {
    const { _meta: _lost, ...unmarked } = template;
    const lines = describeDrift('index-template', unmarked, template);
    expect(lines).toContain('_meta.managed_by (none) -> kfek');
    expect(lines.filter((l) => l.startsWith('_meta {}'))).toEqual([]);
  });

  test.each([
    ['priority', { priority: 5 }, 'priority 5 -> 204'],
    ['composed_of', { composed_of: ['team-settings'] }, 'composed_of + team-settings'],
    [
      'data_stream',
      { data_stream: { timestamp_field: { name: '@timestamp' } } },
      'data_stream.timestamp_field.name @timestamp -> (none)',
    ],
  ])('a template given another %s differs', (_label, edit, line) => {
    const edited = { ...template, ...edit };
    expect(sameContent('index-template', edited, template)).toBe(false);
    expect(describeDrift('index-template', edited, template)).toContain(line);
  });
});
