// What one decision costs inside Redis: `node bench/lua-script.mjs`. RedisStore (eval and function
// modes) sends batches of B requests of one fixedWindow layer over K keys; Redis' own
// `usec_per_call` of the script, divided by B, is the cost of a decision in the script. Beside it,
// the least a script can do for the same decision: HMGET of the four fields fixedWindow reads, then
// HINCRBY (HSET and PEXPIRE for a new key), with no checks. The request id is '', as the limiter
// sends it for algorithms that store none (fixedWindow): a batch of one shape is then sent compressed. Slices of each configuration alternate,
// so a burst of load from elsewhere falls on all alike; the median slice is shown. Writes
// bench/RESULTS-lua.md.
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fixedWindow } from '../packages/core/dist/index.js';
import { RedisStore } from '../packages/redis/dist/index.js';
import { adminClient, recommendedClient } from './redis-clients.mjs';
import { redisServerVersion, startRedisServer } from './redis-server.mjs';
import { median } from './stats.mjs';

const BATCHES = [1, 5, 20, 64];
const KEYS = [1, 10_000];
const SLICES = 9;
const SLICE_MS = 250;

// One decision the least way: read the fields fixedWindow reads, then count.
const FLOOR = `local reply, n = {}, 0
for i = 1, #KEYS do
  local v = redis.call('HMGET', KEYS[i], 'start', 'count', 'bu', 'bn')
  if v[1] then redis.call('HINCRBY', KEYS[i], 'count', 1)
  else redis.call('HSET', KEYS[i], 'start', ARGV[1], 'count', 1) redis.call('PEXPIRE', KEYS[i], 60000) end
  reply[n + 1], reply[n + 2], reply[n + 3], reply[n + 4] = 1, 100, 0, 0
  n = n + 4
end
return reply`;

const server = await startRedisServer();
try {
  const admin = await adminClient(server.port);
  const algorithm = fixedWindow({ limit: 1_000_000_000, window: '1m' });
  const clients = [await recommendedClient(server.port, false), await recommendedClient(server.port, false)];
  const stores = {
    eval: new RedisStore({ client: clients[0], prefix: 'lua' }),
    function: new RedisStore({ client: clients[1], prefix: 'lua', scripts: 'function' }),
  };
  const floorClient = await recommendedClient(server.port, false);
  const floorSha = await floorClient.script('LOAD', FLOOR);
  let next = 0;
  const keysOf = (batch, keys) => Array.from({ length: batch }, () => `lua:k:{${next++ % keys}}`);

  /** Runs one configuration for SLICE_MS; Redis' µs per script call over that slice. */
  async function slice(kind, batch, keys) {
    await admin.config('RESETSTAT');
    const stopAt = performance.now() + SLICE_MS;
    while (performance.now() < stopAt) {
      const names = keysOf(batch, keys);
      if (kind === 'floor') await floorClient.evalsha(floorSha, names.length, ...names, Date.now());
      else await Promise.all(names.map((key) => stores[kind].consume([{ key, algorithm, cost: 1 }], '')));
    }
    const stats = await admin.info('commandstats');
    const command = kind === 'function' ? 'fcall' : 'evalsha';
    return Number(new RegExp(`cmdstat_${command}:calls=\\d+,usec=\\d+,usec_per_call=([\\d.]+)`).exec(stats)?.[1]);
  }

  const kinds = ['eval', 'function', 'floor'];
  const rows = [];
  for (const keys of KEYS) {
    for (const batch of BATCHES) {
      await admin.flushall();
      for (const kind of kinds) await slice(kind, batch, keys);
      const seen = Object.fromEntries(kinds.map((kind) => [kind, []]));
      for (let round = 0; round < SLICES; round++) {
        const order = round % 2 === 0 ? kinds : [...kinds].reverse();
        for (const kind of order) seen[kind].push(await slice(kind, batch, keys));
      }
      const perDecision = Object.fromEntries(kinds.map((kind) => [kind, median(seen[kind]) / batch]));
      rows.push({ keys, batch, ...perDecision });
      console.error(
        `${keys} keys, batch ${batch}: ${kinds.map((k) => `${k} ${perDecision[k].toFixed(2)}`).join(', ')} µs/decision`,
      );
    }
  }
  const report = `# The composer script's cost per decision: \`node bench/lua-script.mjs\`

Date: ${new Date().toISOString()}; redis-server ${redisServerVersion()}; ${cpus().length} cores × ${cpus()[0]?.model.split(' ').slice(0, 2).join(' ')}; load average ${loadavg()[0].toFixed(2)}.
Redis' \`usec_per_call\` of the script over a batch, per decision (one fixedWindow layer, limit never reached), median of ${SLICES} slices of ${SLICE_MS} ms.
**floor**: a script that only reads the four fields and counts (no checks, no blocks, no other algorithm).

| keys | batch | eval (µs/decision) | function | floor | eval / floor |
|---:|---:|---:|---:|---:|---:|
${rows.map((r) => `| ${r.keys.toLocaleString('en-US')} | ${r.batch} | ${r.eval.toFixed(2)} | ${r.function.toFixed(2)} | ${r.floor.toFixed(2)} | ${(r.eval / r.floor).toFixed(2)} |`).join('\n')}
`;
  writeFileSync(new URL('./RESULTS-lua.md', import.meta.url), report);
  console.log(report);
  await Promise.all([admin, floorClient, ...clients].map((client) => client.quit()));
} finally {
  await server.stop();
}
process.exit(0);
