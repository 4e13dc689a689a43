import { buildApp } from './app.js';
import { createStore } from './store.js';

const port = Number(process.env.PORT ?? 3000);
const { store } = await createStore();
const app = await buildApp({ store });

await app.listen({ port, host: '127.0.0.1' });
console.log(`Fastify example on http://127.0.0.1:${port}/ (${process.env.REDIS_URL ? 'Redis' : 'memory'} store)`);
