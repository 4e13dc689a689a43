import { createApp } from './app.js';
import { createStore } from './store.js';

const port = Number(process.env.PORT ?? 3000);
const { store } = await createStore();
const app = createApp({ store });

app.listen(port, '127.0.0.1', () => {
  console.log(`Koa example on http://127.0.0.1:${port}/ (${process.env.REDIS_URL ? 'Redis' : 'memory'} store)`);
});
