import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TlsFiles } from './redis-server.ts';

/** A throwaway certificate authority and a server certificate it signed, for 127.0.0.1. */
export interface TestCertificates extends TlsFiles {
  /** The CA certificate (PEM), as clients are given it. */
  caPem: string;
  remove(): void;
}

/**
 * Makes them with the machine's openssl (OpenSSL 3: `req -x509 -CA`), P-256 keys, valid for a day.
 * The server certificate names IP 127.0.0.1 and is not a CA itself (rustls, under Valkey GLIDE,
 * refuses a self-signed certificate used as its own CA).
 */
export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'floodgate-tls-'));
  const path = (name: string) => join(dir, name);
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'];
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl('req', '-x509', ...key, '-keyout', path('ca.key'), '-out', path('ca.pem'), '-subj', '/CN=floodgate test CA');
  openssl(
    'req',
    '-x509',
    ...key,
    '-keyout',
    path('server.key'),
    '-out',
    path('server.pem'),
    '-subj',
    '/CN=127.0.0.1',
    '-CA',
    path('ca.pem'),
    '-CAkey',
    path('ca.key'),
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-addext',
    'basicConstraints=critical,CA:FALSE',
    '-addext',
    'extendedKeyUsage=serverAuth',
  );
  return {
    cert: path('server.pem'),
    key: path('server.key'),
    ca: path('ca.pem'),
    caPem: readFileSync(path('ca.pem'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
