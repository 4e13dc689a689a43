import { Miniflare } from 'miniflare';
import type { Readable } from 'node:stream';
import type { WorkerBundle } from './bundle.ts';

/** A date this workerd knows (it refuses later ones); the Workers in test/edge use nothing newer. */
export const COMPATIBILITY_DATE = '2026-04-20';

export interface WorkerSpec {
  name: string;
  /** JSON handed to the Worker as the CONFIG binding. */
  config?: object;
  /** The FAULT binding (see TestObject in workers/hono-durable.ts). */
  fault?: 'throw' | 'hang';
  /** The class behind the FLOODGATE binding, when the Worker has one. */
  objectClass?: 'FloodgateObject' | 'TestObject';
  /** The Worker that defines that class (and so owns the objects); default: this one. */
  objectOwner?: string;
  /**
   * The class's storage: SQLite (`new_sqlite_classes`, the default) or the older key-value storage
   * (a class declared under `new_classes`).
   */
  storage?: 'sqlite' | 'key-value';
  /** Compatibility flags, such as `nodejs_compat`. */
  flags?: string[];
}

/** The end of each Miniflare's workerd error output, for failures to quote (see readBodies). */
const stderrTails = new WeakMap<Miniflare, { text: string }>();
const STDERR_TAIL = 2000;

/**
 * Starts workerd (through miniflare) with one isolate per spec, every one running `bundle`.
 * Durable Objects keep their storage in memory and vanish with `dispose()`. `onStderr` receives
 * workerd's own error output instead of the console.
 */
export function startWorkers(
  bundle: WorkerBundle,
  specs: readonly WorkerSpec[],
  onStderr?: (text: string) => void,
): Miniflare {
  const tail = { text: '' };
  const mf = new Miniflare({
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      if (onStderr === undefined) stdout.pipe(process.stdout);
      else stdout.resume();
      stderr.on('data', (chunk: Buffer) => {
        const text = chunk.toString();
        tail.text = (tail.text + text).slice(-STDERR_TAIL);
        if (onStderr === undefined) process.stderr.write(text);
        else onStderr(text);
      });
    },
    workers: specs.map((spec) => ({
      name: spec.name,
      // fetchFrom() reaches each Worker by its own host name.
      routes: [`${spec.name}.edge.test/*`],
      modules: true,
      script: bundle.code,
      compatibilityDate: COMPATIBILITY_DATE,
      ...(spec.flags === undefined ? {} : { compatibilityFlags: spec.flags }),
      bindings: {
        CONFIG: JSON.stringify(spec.config ?? {}),
        ...(spec.fault === undefined ? {} : { FAULT: spec.fault }),
      },
      ...(spec.objectClass === undefined
        ? {}
        : {
            durableObjects: {
              FLOODGATE: {
                className: spec.objectClass,
                useSQLite: spec.storage !== 'key-value',
                ...(spec.objectOwner === undefined ? {} : { scriptName: spec.objectOwner }),
              },
            },
          }),
    })),
  });
  stderrTails.set(mf, tail);
  return mf;
}

/**
 * Reads every response's body. One that cannot be read (CI once saw "Body is unusable" on a burst,
 * cause unknown: a Worker that throws answers a readable 500 here) fails naming each such response
 * and quoting the end of workerd's error output, where an error the Worker hit would be.
 */
export async function readBodies(mf: Miniflare, responses: readonly Response[]): Promise<string[]> {
  const read = await Promise.allSettled(responses.map((response) => response.text()));
  const failed = read.flatMap((result, i) => {
    if (result.status === 'fulfilled') return [];
    const response = responses[i] as Response;
    return [
      `#${i}: ${response.status} ${JSON.stringify(Object.fromEntries(response.headers as unknown as Iterable<[string, string]>))}: ${String(result.reason)}`,
    ];
  });
  if (failed.length > 0) {
    const stderr = stderrTails.get(mf)?.text ?? '';
    throw new Error(
      `response bodies that could not be read: ${failed.join('; ')}; workerd's stderr ends with: ${stderr}`,
    );
  }
  return read.map((result) => (result as PromiseFulfilledResult<string>).value);
}

/** A request to the Worker `worker` (each is routed by host name). */
export function fetchFrom(mf: Miniflare, worker: string, path: string, init: RequestInit = {}): Promise<Response> {
  return mf.dispatchFetch(`http://${worker}.edge.test${path}`, init as never) as unknown as Promise<Response>;
}

/**
 * Waits until each of `workers` has answered a request of its own with 200 (a client address no
 * test uses), so that a test's first burst is not also the first contact with the object a Worker
 * borrows from another: once, on a cold start, one of 40 responses came back with a body that
 * could not be read (see readBodies).
 */
export async function untilAnswered(mf: Miniflare, workers: readonly string[]): Promise<void> {
  for (const worker of workers) {
    for (let attempt = 1; ; attempt++) {
      const response = await fetchFrom(mf, worker, '/limited/warm-up', {
        headers: { 'cf-connecting-ip': '198.51.100.99' },
      });
      const body = await response.text().catch((error: unknown) => String(error));
      if (response.status === 200) break;
      if (attempt === 5) throw new Error(`Worker ${worker} did not answer 200 (${response.status}: ${body})`);
    }
  }
}

/** `count` GETs of `path` from one client address, all in flight at once, spread over `workers` in turn. */
export function burst(
  mf: Miniflare,
  workers: readonly string[],
  path: string,
  count: number,
  headers: Record<string, string> = {},
): Promise<Response[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      fetchFrom(mf, workers[i % workers.length] as string, path, {
        headers: { 'cf-connecting-ip': '203.0.113.7', ...headers },
      }),
    ),
  );
}
