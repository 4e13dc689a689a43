import { MemoryStore } from '@floodgate/nestjs';
import { describeExampleApi } from '../../../test/helpers/example-api.ts';
import { useExampleServer } from '../../../test/helpers/example-server.ts';
import { startApp } from '../src/app.ts';

// A frozen clock: nothing refills during the test, so the counts are exact. The NestJS example
// serves the same routes and limits as the Express, Fastify, Hono and Koa examples.
const clock = () => 1_700_000_000_001;
const suite = useExampleServer(async (defer) => {
  const { app, url } = await startApp({ store: new MemoryStore({ clock }), clock });
  defer(() => app.close());
  return url;
});

describeExampleApi('NestJS', suite);
