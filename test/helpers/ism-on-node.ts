/**
 * A real node with the ISM plugin stood in (test/helpers/fake-ism.ts): the node answers everything but
 * `/_plugins/_ism/...`, which the fake answers with the same request bodies ISM takes, over the node's own indices
 * (listed, and deleted by ISM's `delete` action, on the node itself). No artifact on Maven Central provides ISM for
 * the node kfek's tests run (../shared/ENVIRONMENT.md), so this is as close to a domain as the tests get.
 */
import type { HttpResponse, OpenSearchHttpClient } from '../../core/opensearch/http';
import { FakeIsm, type IsmIndex } from './fake-ism';

export interface NodeWithIsm {
  /** The client the provisioner and the tests use: ISM paths to the fake, the rest to the node. */
  readonly client: OpenSearchHttpClient;
  readonly ism: FakeIsm;
}

/** `node` is a client of a user allowed to list and delete every index (the admin). */
export function withFakeIsm(node: OpenSearchHttpClient, clock: () => number): NodeWithIsm {
  const ism = new FakeIsm(
    {
      async list(): Promise<readonly IsmIndex[]> {
        const listed = await node.request({
          method: 'GET',
          path: '/_cat/indices?format=json&h=index,creation.date&expand_wildcards=open',
        });
        if (listed.status !== 200) throw new Error(`_cat/indices answered ${listed.status}: ${listed.text}`);
        return (listed.body as Array<{ index: string; 'creation.date': string }>)
          .filter((i) => !i.index.startsWith('.') && !i.index.startsWith('security-auditlog'))
          .map((i) => ({ name: i.index, creationDate: Number(i['creation.date']) }));
      },
      async delete(name: string): Promise<void> {
        const deleted = await node.request({ method: 'DELETE', path: `/${name}` });
        if (deleted.status !== 200)
          throw new Error(`DELETE /${name} answered ${deleted.status}: ${deleted.text}`);
      },
    },
    clock,
  );
  return {
    ism,
    client: {
      baseUrl: node.baseUrl,
      request(request): Promise<HttpResponse> {
        const [pathname, query = ''] = request.path.split('?');
        return pathname.startsWith('/_plugins/_ism')
          ? ism.handle(request, pathname, new URLSearchParams(query))
          : node.request(request);
      },
    },
  };
}
