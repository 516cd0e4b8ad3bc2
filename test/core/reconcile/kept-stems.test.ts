/**
 * The stems reconcile searches when the domain's templates cannot be read (a reader without the permission): the
 * profile's own, with a note saying what it could not see, instead of failing the run.
 */
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
import { keptStems } from '../../../core/reconcile/kept-stems';
import { RequestMeter } from '../../../core/reconcile/ports';

const answering = (status: number, body: unknown = {}): OpenSearchHttpClient => ({
  baseUrl: 'http://node',
  request: () => Promise.resolve({ status, body, text: JSON.stringify(body) }),
});

describe('keptStems', () => {
  test("a reader refused the templates searches the profile's stems and says so", async () => {
    const kept = await keptStems({
      client: answering(403),
      meter: new RequestMeter(),
      current: ['logs', 'payments'],
    });
    expect(kept.stems).toEqual(['logs', 'payments']);
    expect(kept.note).toMatch(/could not be read \(HTTP 403\).*logs, payments/);
  });

  test("no kfek template: the profile's stems", async () => {
    const kept = await keptStems({ client: answering(404), meter: new RequestMeter(), current: ['logs'] });
    expect(kept).toEqual({ stems: ['logs'] });
  });

  test.each(['*', 'a,b', 'Logs', '_x', '', 'x y', '.hidden'])(
    'a template ledger naming %j (no stem) never widens the search',
    async (stem) => {
      const client = answering(200, {
        index_templates: [
          {
            name: 'kfek-x',
            index_template: { index_patterns: ['x-*'], _meta: { managed_by: 'kfek', kfek_stem: stem } },
          },
        ],
      });
      const kept = await keptStems({ client, meter: new RequestMeter(), current: ['logs'] });
      expect(kept.stems).toEqual(['logs']);
    },
  );
});
