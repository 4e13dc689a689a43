import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { createStore } from './store.js';

const port = Number(process.env.PORT ?? 3000);
const { store } = await createStore();
const app = createApp({ store });

serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => {
  console.log(`Hono example on http://127.0.0.1:${info.port}/ (${process.env.REDIS_URL ? 'Redis' : 'memory'} store)`);
});
