import { buildApp } from './app.js';
import { createStore } from './store.js';

const port = Number(process.env.PORT ?? 3000);
const instances = Number(process.env.INSTANCES ?? 1);
const { store, close } = await createStore();
const app = await buildApp({ store, instances });

await app.listen({ port, host: '127.0.0.1' });
console.log(`Payments gateway on http://127.0.0.1:${port}/ (${process.env.REDIS_URL ? 'Redis' : 'memory'} store)`);

// Closing the app gives the processor units this instance leased back to Redis.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    await app.close();
    await close();
    process.exit(0);
  });
}
