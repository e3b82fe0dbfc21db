// A throwaway key and self-signed certificate for 127.0.0.1 (Debian's openssl), for test
// servers that speak HTTPS.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface TestCertificate {
  key: Buffer;
  cert: Buffer;
  /** The certificate's file: what a client trusts (NODE_EXTRA_CA_CERTS, an agent's ca). */
  certPath: string;
  remove(): Promise<void>;
}

export async function selfSignedCertificate(): Promise<TestCertificate> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-tls-'));
  const keyPath = path.join(dir, 'key.pem');
  const certPath = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  return {
    key: await fs.readFile(keyPath),
    cert: await fs.readFile(certPath),
    certPath,
    remove: () => fs.rm(dir, { recursive: true, force: true }),
  };
}
