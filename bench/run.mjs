// pnpm bench: decisions per second of MemoryStore for each algorithm (one hot key, many keys), then
// RedisStore on a private redis-server next to MemoryStore on the same concurrent workload.
// Everything is measured in one run and written to its own section of bench/RESULTS.md.
import { runMemory } from './memory.mjs';
import { ioredisVersion } from './redis-clients.mjs';
import { runRedis } from './redis.mjs';
import { redisServerVersion } from './redis-server.mjs';
import { renderResults } from './report.mjs';
import { STORE_SECTION, writeSection } from './results-file.mjs';

const log = (line) => console.log(line);
const memoryRows = await runMemory(log);
const redisServer = redisServerVersion();
const redis = redisServer ? await runRedis(log) : { skipped: 'redis-server is not on the PATH.' };
const results = renderResults({ memoryRows, redis, redisServer, ioredis: ioredisVersion });
writeSection(STORE_SECTION, results);
console.log(`bench/RESULTS.md written (${redis.skipped ? 'MemoryStore only' : 'MemoryStore and RedisStore'})`);
