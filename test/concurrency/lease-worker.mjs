// One app instance with a leased hot key: builds a limiter over RedisStore (from the bundled source),
// waits for "go", then runs `loops` request loops at once, each sending its share of `requests`
// one after another. It closes the limiter (giving unused leased units back) before it reports.
import { Redis } from 'ioredis';

const config = JSON.parse(process.argv[2]);
const floodgate = await import(config.bundle);
const client = new Redis(config.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
await client.connect();

const store = new floodgate.RedisStore({ client, prefix: config.prefix, timeout: 10_000 });
const rule = { name: 'hot', key: () => 'shared', algorithm: floodgate[config.factory](config.options) };
const limiter = floodgate.createLimiter({
  store,
  // A slow turn of a loaded machine must not degrade a decision: degraded ones are counted as failures.
  timeout: 10_000,
  limits: [config.lease ? { ...rule, lease: config.lease } : rule],
});
const ctx = { ip: undefined, header: () => undefined, req: {} };

process.on('message', async (message) => {
  if (message !== 'go') return;
  const tally = { allowed: 0, denied: 0, failed: 0 };
  const loop = async (count) => {
    for (let i = 0; i < count; i++) {
      let decision;
      try {
        decision = await limiter.consume(ctx);
      } catch {
        tally.failed += 1;
        continue;
      }
      if (decision.degraded) tally.failed += 1;
      else if (decision.allowed) tally.allowed += 1;
      else tally.denied += 1;
    }
  };
  const share = config.requests / config.loops;
  await Promise.all(Array.from({ length: config.loops }, () => loop(share)));
  await limiter.close();
  process.send(tally, () => {
    client.disconnect();
    process.exit(0);
  });
});
process.send('ready');
