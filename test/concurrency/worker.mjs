// One app instance: builds a RedisStore (from the bundled source; or, as the negative control, a
// naive read-then-write store), waits for "go", then sends
// `requests` consumes on one key all at once and reports how many were admitted.
import { Redis } from 'ioredis';

const config = JSON.parse(process.argv[2]);
const floodgate = await import(config.bundle);
const client = new Redis(config.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
await client.connect();
// Another client family (test/redis/fixtures/families.ts) for the store, when the test names one.
const family = config.family === undefined ? undefined : await floodgate.connectFamily(config.family, config.url);
/**
 * The negative control: a counter read and written back in two commands, as naive limiters do.
 * Requests that read the same count are all admitted, which the race below must detect.
 */
class ReadThenWriteStore {
  async consume([call]) {
    const key = config.prefix + call.key;
    const count = Number((await client.get(key)) ?? 0);
    if (count >= config.options.limit) return [{ allowed: false }];
    await client.set(key, count + 1, 'PX', 60_000);
    return [{ allowed: true }];
  }
}

const store = config.naive
  ? new ReadThenWriteStore()
  : new floodgate.RedisStore({ client: family?.client ?? client, prefix: config.prefix, timeout: 10_000 });
const algorithm = floodgate[config.factory](config.options);
const call = { key: config.key, algorithm, cost: 1 };

process.on('message', async (message) => {
  if (message !== 'go') return;
  let allowed = 0;
  let denied = 0;
  let failed = 0;
  const one = async (i) => {
    // Each request settles into its own local before touching the shared counters.
    let outcome;
    try {
      [outcome] = await store.consume([call], `${process.pid}-${i}`);
    } catch {
      failed += 1;
      return;
    }
    if (outcome.allowed) allowed += 1;
    else denied += 1;
  };
  await Promise.all(Array.from({ length: config.requests }, (_, i) => one(i)));
  process.send({ allowed, denied, failed }, async () => {
    await family?.close();
    client.disconnect();
    process.exit(0);
  });
});
process.send('ready');
