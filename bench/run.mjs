// pnpm bench: decisions per second of MemoryStore for each algorithm (one hot key, many keys), then
// RedisStore on a private redis-server next to MemoryStore on the same concurrent workload.
// Everything is measured in one run and written to bench/RESULTS.md.
import { writeFileSync } from 'node:fs';
import { runMemory } from './memory.mjs';
import { ioredisVersion } from './redis-clients.mjs';
import { runRedis } from './redis.mjs';
import { redisServerVersion } from './redis-server.mjs';
import { renderResults } from './report.mjs';

const log = (line) => console.log(line);
const memoryRows = await runMemory(log);
const redisServer = redisServerVersion();
const redis = redisServer ? await runRedis(log) : { skipped: 'redis-server is not on the PATH.' };
const results = renderResults({ memoryRows, redis, redisServer, ioredis: ioredisVersion });
writeFileSync(new URL('./RESULTS.md', import.meta.url), results);
console.log(`bench/RESULTS.md written (${redis.skipped ? 'MemoryStore only' : 'MemoryStore and RedisStore'})`);
