// node bench/limiter-turn.mjs [root]: the node CPU one limiter.consume over RedisStore costs when
// the requests of a turn are decided together, as the adapters do (32 per turn, 10,000 keys, one
// fixedWindow rule, the recommended ioredis settings, a private redis-server). Prints the median of
// 5 one-second rounds after a warm-up, and Redis' usec_per_call for the script.
// `root` (default: this checkout) lets two builds be compared side by side on the same machine:
// build each (`pnpm turbo run build --filter=./packages/*`), then run this against each in turn.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { adminClient, recommendedClient } from './redis-clients.mjs';
import { startRedisServer } from './redis-server.mjs';

const root = resolve(process.argv[2] ?? new URL('..', import.meta.url).pathname);
const dist = (name) => pathToFileURL(`${root}/packages/${name}/dist/index.js`).href;
const { createLimiter, fixedWindow, byHeader } = await import(dist('core'));
const { RedisStore } = await import(dist('redis'));

const PER_TURN = 32;
const KEYS = 10_000;
const redis = await startRedisServer();
const client = await recommendedClient(redis.port, false);
const admin = await adminClient(redis.port);
const limiter = createLimiter({
  store: new RedisStore({ client, prefix: 'bench' }),
  limits: [{ name: 'apiKey', key: byHeader('x-api-key'), algorithm: fixedWindow({ limit: 1e9, window: 60_000 }) }],
});
const contexts = Array.from({ length: KEYS }, (_, index) => {
  const headers = { 'x-api-key': `k${index}` };
  return { ip: '127.0.0.1', header: (name) => headers[name], req: {} };
});

let next = 0;
async function turn() {
  const decisions = [];
  for (let i = 0; i < PER_TURN; i++) decisions.push(limiter.consume(contexts[next++ % KEYS]));
  await Promise.all(decisions);
}
async function decideFor(ms) {
  const end = performance.now() + ms;
  let decided = 0;
  while (performance.now() < end) {
    await turn();
    decided += PER_TURN;
  }
  return decided;
}

await decideFor(1500);
await admin.config('RESETSTAT');
const rounds = [];
for (let round = 0; round < 5; round++) {
  const before = process.cpuUsage();
  const decided = await decideFor(1000);
  const used = process.cpuUsage(before);
  rounds.push((used.user + used.system) / decided);
}
const stats = String(await admin.info('commandstats'));
const perCall = /cmdstat_evalsha:calls=\d+,usec=\d+,usec_per_call=([\d.]+)/.exec(stats)?.[1];
rounds.sort((a, b) => a - b);
console.log(
  `${root}: node CPU per decision ${rounds[2].toFixed(2)} µs (rounds ${rounds.map((r) => r.toFixed(2)).join(', ')}); ` +
    `script usec_per_call ${perCall} for ${PER_TURN} requests`,
);
await limiter.close?.();
client.disconnect();
admin.disconnect();
await redis.stop();
