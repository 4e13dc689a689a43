import { createPlayground } from './app.js';
import { storeFromEnv } from './store.js';

const port = Number(process.env.PORT ?? 3000);
const { store, storeName, close } = await storeFromEnv();
const app = createPlayground({ store, storeName });

const server = app.listen(port, '127.0.0.1', (error) => {
  if (error) throw error;
  console.log(`Floodgate playground (${storeName} store): http://127.0.0.1:${port}/`);
});

process.once('SIGINT', () => {
  server.close();
  server.closeAllConnections();
  close().finally(() => process.exit(0));
});
