/**
 * The stems reconcile searches (kept-stems.ts): the profile's own, plus the retired ones of the `kfek-*` templates
 * kfek's record (`.kfek-registry`) vouches for with the content hash it recorded. A template the record does not
 * name (a copy, one made by hand) is ignored with a warning naming it; one it names but whose content changed gives
 * only the stem of its recorded name. When the templates or the record cannot be read, the profile's own stems, with
 * a note saying what it could not see, instead of failing the run.
 */
import { ownedHash } from '../../../core/opensearch/drift';
import type { HttpRequest, OpenSearchHttpClient } from '../../../core/opensearch/http';
import { keptStems } from '../../../core/reconcile/kept-stems';
import { RequestMeter } from '../../../core/reconcile/ports';

interface Answer {
  readonly status: number;
  readonly body?: unknown;
}

/** A node that answers the template listing and the record's document. */
const node = (templates: Answer, registry: Answer = { status: 404 }): OpenSearchHttpClient => ({
  baseUrl: 'http://node',
  request: (r: HttpRequest) => {
    const { status, body = {} } = r.path.startsWith('/.kfek-registry/') ? registry : templates;
    return Promise.resolve({ status, body, text: JSON.stringify(body) });
  },
});

const template = (
  name: string,
  stem: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  name,
  index_template: {
    index_patterns: [`${stem}-*`],
    priority: 204,
    _meta: { managed_by: 'kfek', kfek_stem: stem, ...extra },
  },
});
const listing = (...entries: Record<string, unknown>[]): Answer => ({
  status: 200,
  body: { index_templates: entries },
});
/** kfek's record holding each template's content hash (as the provisioner writes it). */
const recordOf = (...entries: Record<string, unknown>[]): Answer => ({
  status: 200,
  body: {
    found: true,
    _seq_no: 3,
    _primary_term: 1,
    _source: {
      objects: Object.fromEntries(
        entries.map((e) => [
          `index-template:${String(e.name)}`,
          ownedHash('index-template', e.index_template),
        ]),
      ),
    },
  },
});

const stemsOf = (client: OpenSearchHttpClient, current: string[] = ['logs']): ReturnType<typeof keptStems> =>
  keptStems({ client, meter: new RequestMeter(), current });

describe('keptStems', () => {
  test("a reader refused the templates searches the profile's stems and says so", async () => {
    const kept = await stemsOf(node({ status: 403 }), ['logs', 'payments']);
    expect(kept.stems).toEqual(['logs', 'payments']);
    expect(kept.note).toMatch(/could not be read \(HTTP 403\).*logs, payments/);
  });

  test("no kfek template: the profile's stems", async () => {
    expect(await stemsOf(node({ status: 404 }))).toEqual({ stems: ['logs'], ignored: [] });
  });

  test('the retired stem of a template kfek recorded with its content is searched', async () => {
    const retired = template('kfek-orders-a', 'orders-a', { kfek_retired_at: '2026-11-27T09:00:00Z' });
    const current = template('kfek-logs', 'logs');
    const kept = await stemsOf(node(listing(current, retired), recordOf(current, retired)));
    expect(kept).toEqual({ stems: ['logs', 'orders-a'], ignored: [] });
  });

  test.each([
    ['a hand-made template', template('kfek-evil', 'team-b-payments')],
    ['a copy of a kfek template under another name', template('kfek-orders-copy', 'team-b-payments')],
    ['a template without a ledger', { name: 'kfek-x', index_template: { index_patterns: ['team-b-*'] } }],
  ])('%s that kfek never recorded is ignored and named in a warning', async (_what, forged) => {
    const own = template('kfek-logs', 'logs');
    const kept = await stemsOf(node(listing(own, forged), recordOf(own)));
    expect(kept.stems).toEqual(['logs']);
    expect(kept.ignored).toEqual([
      expect.stringMatching(
        new RegExp(`^index template ${String(forged.name)}: ignored: .*does not name it`),
      ),
    ]);
  });

  test("a recorded template whose ledger was edited by hand gives only its recorded name's stem", async () => {
    const written = template('kfek-orders-a', 'orders-a');
    const edited = template('kfek-orders-a', 'team-b-payments');
    const kept = await stemsOf(node(listing(edited), recordOf(written)));
    expect(kept.stems).toEqual(['logs', 'orders-a']);
    expect(kept.ignored).toEqual([
      expect.stringMatching(
        /^index template kfek-orders-a: changed by hand .*"team-b-payments".*\(orders-a\)/,
      ),
    ]);
  });

  test.each([
    ['absent (a domain deployed before it)', { status: 404 }, /is not on the domain/],
    ['refused (a reconcile role without it)', { status: 403 }, /could not be read \(HTTP 403/],
  ])('without kfek record %s no template is trusted, and the note says so', async (_what, registry, why) => {
    const kept = await stemsOf(node(listing(template('kfek-orders-a', 'orders-a')), registry));
    expect(kept.stems).toEqual(['logs']);
    expect(kept.note).toMatch(why);
    expect(kept.note).toMatch(/no index template is trusted/);
  });

  test.each(['*', 'a,b', 'Logs', '_x', '', 'x y', '.hidden'])(
    'a template ledger naming %j (no stem) never widens the search, even one kfek recorded',
    async (stem) => {
      const odd = template('kfek-x', stem);
      const kept = await stemsOf(node(listing(odd), recordOf(odd)));
      expect(kept.stems).toEqual(['logs']);
    },
  );
});
