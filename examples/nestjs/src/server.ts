import { startApp } from './app.js';
import { createStore } from './store.js';

const port = Number(process.env.PORT ?? 3000);
const { store } = await createStore();
const { url } = await startApp({ store, port });
console.log(`NestJS example on ${url}/ (${process.env.REDIS_URL ? 'Redis' : 'memory'} store)`);
