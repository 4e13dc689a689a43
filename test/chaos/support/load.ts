import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** One HTTP response as the load driver saw it. */
export interface Sample {
  /** Sequence number, also sent as the `x-request` header. */
  id: number;
  /** ms from sending the request to the end of its response, at the driver. */
  latency: number;
  /** HTTP status; 0 when the request failed or took longer than the driver's own 15 s limit. */
  status: number;
  retryAfter: string | undefined;
  /** Why a request with status 0 got no answer. */
  error?: string;
}

export interface LoadOptions {
  /** e.g. `http://127.0.0.1:1234/` */
  url: string;
  /** Requests per second. */
  rate: number;
  durationMs: number;
  /** `x-client` values used round-robin, or how many (`c0`, `c1`, ...). Default 20. */
  clients?: number | string[];
  /** When set, every request gets its own `x-client`: this prefix and the request's number. */
  uniquePrefix?: string;
  /** Keep-alive sockets. Default 64. */
  sockets?: number;
}

const DRIVER = fileURLToPath(new URL('./load-driver.mjs', import.meta.url));

/**
 * Sends `rate` requests per second for `durationMs` from a second process over keep-alive loopback
 * sockets, without waiting for answers (open loop: a slow server cannot slow the sender down), and
 * resolves with every response once the last one has ended. Each request is abandoned after 15 s,
 * so the driver always stops.
 */
export function runLoad(options: LoadOptions): Promise<Sample[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DRIVER, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load driver exited with ${code}`));
      resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Sample[]);
    });
  });
}
