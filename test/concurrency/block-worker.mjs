// One app instance with a penalised rule: builds a RedisStore from the bundled source, then for
// each wave the parent starts, sends `requests` consumes on one key all at once and reports every
// outcome (allowed, resetAt), so the parent can compare the blocks the instances saw.
import { Redis } from 'ioredis';

const config = JSON.parse(process.argv[2]);
const floodgate = await import(config.bundle);
const client = new Redis(config.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
await client.connect();
const store = new floodgate.RedisStore({ client, prefix: config.prefix, timeout: 10_000, clock: config.clock });
const algorithm = floodgate[config.factory](config.options);

async function wave({ critical }) {
  const call = { key: config.key, algorithm, cost: 1, critical, penalty: config.penalty };
  const one = async (i) => {
    try {
      const [outcome] = await store.consume([call], `${process.pid}-${critical ? 'c' : 'n'}-${i}`);
      return { allowed: outcome.allowed, resetAt: outcome.resetAt };
    } catch (error) {
      return { failed: String(error) };
    }
  };
  return Promise.all(Array.from({ length: config.requests }, (_, i) => one(i)));
}

process.on('message', async (message) => {
  if (message === 'exit') {
    client.disconnect();
    process.exit(0);
  }
  process.send(await wave(message));
});
process.send('ready');
