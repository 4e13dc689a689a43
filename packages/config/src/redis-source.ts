import { InvalidOptionError, InvalidOptionTypeError, rulesFromDocument, limitsPublisher } from '@floodgate/core';
import { rulesFromText } from './document-text';
import type { LimitsFeed } from '@floodgate/core';
import type { SourceOptions } from './document-text';

/** The two commands a limits key needs: ioredis, node-redis and iovalkey clients all have them. */
export interface LimitsClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<unknown>;
}

export interface RedisLimitsOptions<Req = unknown> extends SourceOptions<Req> {
  /** How often each instance reads the key (ms). Default 5000: a change is in use everywhere within that. */
  interval?: number;
}

export interface RedisLimits<Req = unknown> extends LimitsFeed<Req> {
  readonly key: string;
  /** Reads the key now; resolves true when it held new valid rules (in use from the next request on). */
  poll(): Promise<boolean>;
  /** Stops polling. */
  close(): void;
}

const DEFAULT_INTERVAL = 5_000;

/**
 * Limits from one Redis key holding the JSON document (write it with publishLimits). Every instance
 * reads the key each `interval` and applies a changed document that validates, so all instances
 * use it within `interval` (plus one GET) of the write. The first read throws a coded error when
 * the key is empty or invalid; later failures (Redis unreachable, a bad document) keep the running
 * rules and are reported once to each limiter's onWarning.
 *
 * @example
 * const limits = await limitsFromRedis(redis, 'fg:limits', { interval: 2000 });
 * app.use(rateLimit({ store: new RedisStore({ client: redis }), limits }));
 */
export async function limitsFromRedis<Req = unknown>(
  client: LimitsClient,
  key: string,
  options: RedisLimitsOptions<Req> = {},
): Promise<RedisLimits<Req>> {
  const { interval = DEFAULT_INTERVAL, ...documentOptions } = options;
  checkClient(client);
  if (!Number.isInteger(interval) || interval < 10 || interval > 2 ** 31 - 1) {
    throw new InvalidOptionError(
      `limitsFromRedis.interval must be a whole number of ms from 10 to 2^31 - 1, got ${String(interval)}`,
    );
  }
  const source = `limits key ${key}`;
  let text = await client.get(key);
  if (text === null) throw new InvalidOptionError(`${source} holds no document (write one with publishLimits)`);
  const feed = limitsPublisher(rulesFromText(text, source, documentOptions));
  let failing = false;
  let queue: Promise<boolean> = Promise.resolve(false);
  const readNow = async (): Promise<boolean> => {
    let next: string | null;
    try {
      next = await client.get(key);
    } catch (error) {
      // Reported once per outage, not once per poll.
      if (!failing) feed.fail(new Error(`${source} could not be read: ${(error as Error).message}`));
      failing = true;
      return false;
    }
    failing = false;
    if (next === null || next === text) return false;
    text = next;
    try {
      feed.publish(rulesFromText(next, source, documentOptions));
      return true;
    } catch (error) {
      feed.fail(error);
      return false;
    }
  };
  const poll = () => {
    queue = queue.then(readNow);
    return queue;
  };
  const timer = setInterval(() => void poll(), interval);
  timer.unref();
  return {
    key,
    get rules() {
      return feed.rules;
    },
    subscribe: feed.subscribe,
    poll,
    close: () => clearInterval(timer),
  };
}

/**
 * Checks a document and writes it to `key`, where every instance's limitsFromRedis picks it up.
 * Throws the coded error of the first problem and writes nothing when it is invalid.
 */
export async function publishLimits(client: LimitsClient, key: string, document: unknown): Promise<void> {
  checkClient(client);
  // What only code can give (the user, the tenant) is each instance's to supply: stand-ins here.
  rulesFromDocument(document, { source: `limits for ${key}`, user: () => undefined, tenant: () => undefined });
  await client.set(key, JSON.stringify(document));
}

function checkClient(client: LimitsClient): void {
  if (typeof client?.get !== 'function' || typeof client.set !== 'function') {
    throw new InvalidOptionTypeError(
      'the Redis client must have get(key) and set(key, value) (ioredis, node-redis or iovalkey)',
    );
  }
}
