/**
 * The TLS material of the secured local node, generated at every start, in memory, for 127.0.0.1 only: a root CA,
 * the node's certificate (transport and REST layers) and an admin certificate (the security plugin's super user:
 * `plugins.security.authcz.admin_dn`, what `securityadmin` and certificate-authenticated REST calls present).
 *
 * Keys come from Node's own crypto (RSA 2048, native); the X.509 certificates are built and signed with node-forge,
 * because Node can parse certificates but not create them. No `openssl` or `keytool` binary is needed. The key
 * files are PKCS#8 PEM: the security plugin reads no other unencrypted PEM key format.
 * https://docs.opensearch.org/latest/security/configuration/tls/
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** One certificate and its private key, both PEM. */
export interface CertificateAndKey {
  readonly certPem: string;
  /** PKCS#8 (`BEGIN PRIVATE KEY`). */
  readonly keyPem: string;
  /** The subject as the security plugin writes DNs (RFC 2253, most specific first), e.g. `CN=kfek-node,O=kfek`. */
  readonly dn: string;
}

export interface TlsMaterial {
  readonly ca: CertificateAndKey;
  readonly node: CertificateAndKey;
  readonly admin: CertificateAndKey;
}

/** Subjects, least specific first as forge takes them; the DN strings reverse them (RFC 2253). */
const ORGANISATION = [
  { shortName: 'O', value: 'kfek' },
  { shortName: 'OU', value: 'local' },
];

function subject(commonName: string): forge.pki.CertificateField[] {
  return [...ORGANISATION, { shortName: 'CN', value: commonName }];
}

function dnOf(fields: readonly forge.pki.CertificateField[]): string {
  return [...fields]
    .reverse()
    .map((f) => `${String(f.shortName)}=${String(f.value)}`)
    .join(',');
}

function newKeyPair(): {
  keyPem: string;
  publicKey: forge.pki.PublicKey;
  privateKey: forge.pki.rsa.PrivateKey;
} {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(keyPem);
  return {
    keyPem,
    privateKey: forgeKey,
    publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e),
  };
}

interface IssueOptions {
  readonly commonName: string;
  readonly extensions: readonly object[];
  /** The signer; undefined for the self-signed CA. */
  readonly issuer?: { readonly cert: forge.pki.Certificate; readonly key: forge.pki.rsa.PrivateKey };
  readonly now: Date;
  readonly validDays: number;
}

function issue(options: IssueOptions): {
  material: CertificateAndKey;
  cert: forge.pki.Certificate;
  key: forge.pki.rsa.PrivateKey;
} {
  const keys = newKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  // A positive serial: the high bit of the first byte cleared.
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  cert.serialNumber = serial.toString('hex');
  // An hour back: a node whose clock is slightly behind still accepts the certificates.
  cert.validity.notBefore = new Date(options.now.getTime() - 3_600_000);
  cert.validity.notAfter = new Date(options.now.getTime() + options.validDays * 86_400_000);
  const fields = subject(options.commonName);
  cert.setSubject(fields);
  cert.setIssuer(options.issuer?.cert.subject.attributes ?? fields);
  cert.setExtensions([
    ...options.extensions,
    { name: 'subjectKeyIdentifier' },
    ...(options.issuer === undefined
      ? []
      : [
          {
            name: 'authorityKeyIdentifier',
            keyIdentifier: options.issuer.cert.generateSubjectKeyIdentifier().getBytes(),
          },
        ]),
  ]);
  cert.sign(options.issuer?.key ?? keys.privateKey, forge.md.sha256.create());
  return {
    material: { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem, dn: dnOf(fields) },
    cert,
    key: keys.privateKey,
  };
}

/** What {@link generateTlsMaterial} may be told. */
export interface TlsMaterialOptions {
  /** @default new Date() */
  readonly now?: Date;
  /** @default 30 (a node lives for one test file or one `npm start`; the material is made anew each start) */
  readonly validDays?: number;
}

/** A fresh CA, node certificate (127.0.0.1 and localhost) and admin certificate. */
export function generateTlsMaterial(options: TlsMaterialOptions = {}): TlsMaterial {
  const now = options.now ?? new Date();
  const validDays = options.validDays ?? 30;
  const ca = issue({
    commonName: 'kfek-local-root-ca',
    now,
    validDays,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const issuer = { cert: ca.cert, key: ca.key };
  /** An end-entity certificate signed by the CA. */
  const leaf = (commonName: string, extensions: readonly object[]): ReturnType<typeof issue> =>
    issue({
      commonName,
      now,
      validDays,
      issuer,
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        ...extensions,
      ],
    });
  const node = leaf('kfek-node', [
    // The node is a server on both layers and a client of its own transport layer.
    { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 7, ip: '127.0.0.1' },
        { type: 2, value: 'localhost' },
      ],
    },
  ]);
  const admin = leaf('kfek-admin', [{ name: 'extKeyUsage', clientAuth: true }]);
  return { ca: ca.material, node: node.material, admin: admin.material };
}
