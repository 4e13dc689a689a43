// One app instance: builds a RedisStore (from the bundled source), waits for "go", then sends
// `requests` consumes on one key all at once and reports how many were admitted.
import { Redis } from 'ioredis';

const config = JSON.parse(process.argv[2]);
const floodgate = await import(config.bundle);
const client = new Redis(config.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
await client.connect();
const store = new floodgate.RedisStore({ client, prefix: config.prefix, timeout: 10_000 });
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
  process.send({ allowed, denied, failed }, () => {
    client.disconnect();
    process.exit(0);
  });
});
process.send('ready');
