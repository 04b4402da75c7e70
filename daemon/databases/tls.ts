// Berth's own certificate authority for database TLS: one CA per daemon, kept in the data dir
// (key 0600), signing a server certificate per database service whose names cover its public
// hostname and its name on the project network, never an address every tenant's database shares
// (127.0.0.1, localhost, the public IP). @peculiar/x509 builds the X.509
// structures on Node's WebCrypto (ECDSA P-256), so no openssl binary is needed at run time.
import { webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type * as X509Module from '@peculiar/x509';

const crypto = webcrypto as unknown as Crypto;

type X509 = typeof X509Module;
let loaded: Promise<X509> | null = null;
/** The X.509 library, loaded on first use (it is only needed when a certificate is made). */
function x509lib(): Promise<X509> {
  loaded ??= (async () => {
    await import('reflect-metadata'); // @peculiar/x509's dependency injection (tsyringe) needs it first
    const lib = await import('@peculiar/x509');
    lib.cryptoProvider.set(crypto);
    return lib;
  })();
  return loaded;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;

export interface ServerCertificate {
  /** Directory holding server.crt, server.key and ca.crt, mounted read-only into the container. */
  dir: string;
  names: string[];
}

export class BerthCa {
  private readonly caCertPath: string;
  private readonly caKeyPath: string;

  constructor(private readonly tlsDir: string) {
    this.caCertPath = join(tlsDir, 'ca.crt');
    this.caKeyPath = join(tlsDir, 'ca.key');
  }

  get caPath(): string {
    return this.caCertPath;
  }

  hasCa(): boolean {
    return existsSync(this.caCertPath) && existsSync(this.caKeyPath);
  }

  /** The CA certificate in PEM, made on first use. */
  async caPem(): Promise<string> {
    await this.ensureCa();
    return readFileSync(this.caCertPath, 'utf8');
  }

  private async ensureCa(): Promise<void> {
    if (this.hasCa()) return;
    const x509 = await x509lib();
    mkdirSync(this.tlsDir, { recursive: true, mode: 0o700 });
    const keys = (await crypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      name: `CN=Berth database CA ${new Date().toISOString().slice(0, 10)}`,
      keys,
      signingAlgorithm: ALG,
      notBefore: new Date(Date.now() - DAY),
      notAfter: new Date(Date.now() + 3650 * DAY),
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    // key first: a CA certificate is only ever on disk beside its key
    writeAtomically(this.caKeyPath, await pemOfKey(keys.privateKey), 0o600);
    writeAtomically(this.caCertPath, cert.toString('pem'), 0o644);
  }

  /** Removes a deleted service's certificate and key. */
  forget(serviceId: string): void {
    rmSync(join(this.tlsDir, 'services', serviceId), { recursive: true, force: true });
  }

  /** Issues (or re-issues) the server certificate of one service, into `<tlsDir>/services/<id>/`. */
  async issueServer(serviceId: string, names: readonly string[]): Promise<ServerCertificate> {
    const unique = [...new Set(names.filter((n) => n.length > 0))];
    const dir = join(this.tlsDir, 'services', serviceId);
    await this.issue(dir, 'server', unique[0] ?? serviceId, unique);
    chmodSync(dir, 0o755); // the container's entrypoint reads it as root and copies it for the server user
    return { dir, names: unique };
  }

  /**
   * A client certificate (extended key usage clientAuth) for `name`, into `<tlsDir>/clients/<name>/`
   * (client.crt, client.key, ca.crt), made once and kept: what a server that trusts Berth's CA for
   * its clients (a node's engine relay) accepts.
   */
  async client(name: string): Promise<{ cert: string; key: string; ca: string }> {
    const dir = join(this.tlsDir, 'clients', name);
    if (!existsSync(join(dir, 'client.crt')) || !existsSync(join(dir, 'client.key'))) await this.issue(dir, 'client', name, []);
    const read = (file: string) => readFileSync(join(dir, file), 'utf8');
    return { cert: read('client.crt'), key: read('client.key'), ca: await this.caPem() };
  }

  /** A leaf certificate signed by the CA: `<kind>.crt`, `<kind>.key` and ca.crt in `dir`. */
  private async issue(dir: string, kind: 'server' | 'client', commonName: string, names: readonly string[]): Promise<void> {
    await this.ensureCa();
    const x509 = await x509lib();
    const caCert = new x509.X509Certificate(readFileSync(this.caCertPath, 'utf8'));
    const caKey = await importKey(readFileSync(this.caKeyPath, 'utf8'));
    const keys = (await crypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create({
      subject: `CN=${commonName}`,
      issuer: caCert.subject,
      publicKey: keys.publicKey,
      signingKey: caKey,
      signingAlgorithm: ALG,
      notBefore: new Date(Date.now() - DAY),
      notAfter: new Date(Date.now() + 825 * DAY),
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement, true),
        new x509.ExtendedKeyUsageExtension([kind === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
        ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: isIP(value) ? ('ip' as const) : ('dns' as const), value })))] : []),
        await x509.AuthorityKeyIdentifierExtension.create(caCert),
      ],
    });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeAtomically(join(dir, `${kind}.key`), await pemOfKey(keys.privateKey), 0o600);
    writeAtomically(join(dir, `${kind}.crt`), cert.toString('pem'), 0o644);
    writeAtomically(join(dir, 'ca.crt'), readFileSync(this.caCertPath, 'utf8'), 0o644);
  }
}

async function pemOfKey(key: CryptoKey): Promise<string> {
  const x509 = await x509lib();
  const der = Buffer.from(await crypto.subtle.exportKey('pkcs8', key));
  return x509.PemConverter.encode(der, 'PRIVATE KEY') + '\n';
}

async function importKey(pem: string): Promise<CryptoKey> {
  const x509 = await x509lib();
  const der = x509.PemConverter.decodeFirst(pem);
  return crypto.subtle.importKey('pkcs8', der, ALG, false, ['sign']);
}

function writeAtomically(path: string, text: string, mode: number): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}
