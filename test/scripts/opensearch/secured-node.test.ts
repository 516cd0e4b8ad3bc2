/**
 * The secured node's parts that need no OpenSearch (scripts/opensearch/tls-material.ts, https-fetch.ts,
 * security-config.ts): the certificates chain to their CA and name 127.0.0.1, the HTTPS fetch trusts that CA and
 * no other, and the security config holds what the plugin needs (its Java range is tested in java.test.ts). The
 * node itself is exercised by test/core/opensearch/security.secured.test.ts.
 */
import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import bcrypt from 'bcryptjs';
import { fetchTrusting, withBasicAuth } from '../../../scripts/opensearch/https-fetch';
import { buildSecurityConfig, TLS_FILES } from '../../../scripts/opensearch/security-config';
import { generateTlsMaterial, type TlsMaterial } from '../../../scripts/opensearch/tls-material';

let tls: TlsMaterial;

beforeAll(() => {
  tls = generateTlsMaterial({ now: new Date('2026-11-25T00:00:00Z') });
});

describe('generateTlsMaterial', () => {
  test('issues a node and an admin certificate from one CA, the node one for 127.0.0.1, with PKCS#8 keys', () => {
    const ca = new X509Certificate(tls.ca.certPem);
    const node = new X509Certificate(tls.node.certPem);
    const admin = new X509Certificate(tls.admin.certPem);

    expect(ca.ca).toBe(true);
    for (const cert of [node, admin]) {
      expect(cert.ca).toBe(false);
      expect(cert.checkIssued(ca)).toBe(true);
      expect(cert.verify(ca.publicKey)).toBe(true);
    }
    expect(node.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(node.checkHost('localhost')).toBe('localhost');
    expect(admin.checkIP('127.0.0.1')).toBeUndefined();
    expect(tls.node.dn).toBe('CN=kfek-node,OU=local,O=kfek');
    expect(tls.admin.dn).toBe('CN=kfek-admin,OU=local,O=kfek');
    for (const material of [tls.ca, tls.node, tls.admin]) {
      expect(material.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    }
    expect(new Date(node.validTo).getTime()).toBe(new Date('2026-12-25T00:00:00Z').getTime());
  });

  test('makes new keys every time', () => {
    expect(generateTlsMaterial().ca.keyPem).not.toBe(tls.ca.keyPem);
  });
});

describe('fetchTrusting', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer({ cert: tls.node.certPem, key: tls.node.keyPem }, (request, response) => {
      if (request.url === '/empty') {
        response.writeHead(204).end();
        return;
      }
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ method: request.method, authorization: request.headers.authorization, body }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('reaches a server whose certificate the CA signed, with method, body, headers and status', async () => {
    const fetchImpl = withBasicAuth(fetchTrusting({ caPem: tls.ca.certPem }), 'admin', 'secret');
    const response = await fetchImpl(`${url}/x`, { method: 'PUT', body: '{"a":1}' });

    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({
      method: 'PUT',
      authorization: `Basic ${Buffer.from('admin:secret').toString('base64')}`,
      body: '{"a":1}',
    });
    expect((await fetchImpl(`${url}/empty`)).status).toBe(204);
  });

  test('fails when the server is not signed by the CA it trusts, as plain fetch does', async () => {
    const other = generateTlsMaterial();
    await expect(fetchTrusting({ caPem: other.ca.certPem })(url)).rejects.toThrow(
      /self.signed|unable to verify/i,
    );
    await expect(fetch(url)).rejects.toThrow();
  });
});

describe('buildSecurityConfig', () => {
  test('TLS on both layers from files below the config folder, the admin DN, and users with bcrypt hashes', async () => {
    const config = await buildSecurityConfig(tls, [
      { name: 'firehose', backendRoles: ['arn:aws:iam::1:role/f'] },
    ]);

    expect(config.settings).toMatchObject({
      'plugins.security.ssl.http.enabled': true,
      'plugins.security.ssl.http.pemtrustedcas_filepath': TLS_FILES.ca,
      'plugins.security.ssl.transport.pemkey_filepath': TLS_FILES.nodeKey,
      'plugins.security.allow_default_init_securityindex': true,
      'plugins.security.authcz.admin_dn': '["CN=kfek-admin,OU=local,O=kfek"]',
      'plugins.security.nodes_dn': '["CN=kfek-node,OU=local,O=kfek"]',
    });
    expect(config.files[TLS_FILES.nodeKey]).toBe(tls.node.keyPem);
    const users = JSON.parse(config.files['opensearch-security/internal_users.yml']) as Record<
      string,
      { hash?: string; backend_roles?: string[] }
    >;
    expect(Object.keys(users)).toEqual(['_meta', 'admin', 'firehose']);
    expect(users.firehose.backend_roles).toEqual(['arn:aws:iam::1:role/f']);
    const firehose = config.credentials.get('firehose');
    expect(await bcrypt.compare(firehose?.password ?? '', users.firehose.hash ?? '')).toBe(true);
    expect(config.credentials.get('admin')?.password).not.toBe(firehose?.password);
    expect(JSON.parse(config.files['opensearch-security/roles_mapping.yml'])).toMatchObject({
      all_access: { backend_roles: ['admin'] },
      security_manager: { backend_roles: ['admin'] },
    });
  });

  test('fails when two users share a name', async () => {
    await expect(buildSecurityConfig(tls, [{ name: 'admin', backendRoles: [] }])).rejects.toThrow(
      /distinct names; "admin" is given twice/,
    );
  });
});
