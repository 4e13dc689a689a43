// One benchmark server (a child process): Fastify 5 whose handler waits on the simulated
// dependency, behind the protection named by argv[2]. Prints its port on stdout.
import underPressure from '@fastify/under-pressure';
import { adaptiveConcurrency, concurrency } from '@floodgate/core';
import { floodgate } from '@floodgate/fastify';
import Fastify from 'fastify';
import { dependency } from './dependency.mjs';

const [mode, workers, serviceMs] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const dep = dependency({ workers, serviceMs });
const app = Fastify({ forceCloseConnections: true });
let layer;

if (mode.startsWith('concurrency:')) {
  const max = Number(mode.split(':')[1]);
  await app.register(floodgate, {
    limits: [{ name: 'process', key: () => 'all', algorithm: concurrency({ max }) }],
    legacyHeaders: false,
  });
} else if (mode === 'under-pressure') {
  // The README's recommended thresholds.
  await app.register(underPressure, {
    maxEventLoopDelay: 1000,
    maxHeapUsedBytes: 100000000,
    maxRssBytes: 100000000,
    maxEventLoopUtilization: 0.98,
  });
} else if (mode.startsWith('adaptive:')) {
  layer = adaptiveConcurrency({ algorithm: mode.split(':')[1] });
  await app.register(floodgate, { limits: [layer], legacyHeaders: false });
} else if (mode !== 'unprotected') {
  throw new Error(`unknown mode ${mode}`);
}

app.get('/work', async () => {
  await dep.call();
  return 'ok';
});
app.get('/stats', { config: { rateLimit: false } }, async () => ({
  limit: layer?.snapshot().limit,
  inFlight: layer?.snapshot().inFlight,
  queued: dep.queued,
}));

await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${app.server.address().port}\n`);
