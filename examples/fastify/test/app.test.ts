import type { AddressInfo } from 'node:net';
import { MemoryStore } from '@floodgate/fastify';
import { useExampleServer } from '../../../test/helpers/example-server.ts';
import { buildApp } from '../src/app.js';
import { describeExampleApi } from '../../../test/helpers/example-api.ts';

// A frozen clock: nothing refills during the test, so the counts are exact.
const clock = () => 1_700_000_000_001;
const suite = useExampleServer(async (defer) => {
  const app = await buildApp({ store: new MemoryStore({ clock }), clock });
  defer(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

describeExampleApi('Fastify', suite);
