import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Store } from '@floodgate/nestjs';
import { appModule } from './app.module.js';

/** The Nest app on Express, listening on 127.0.0.1:`port` (0: any free port); resolves to its base URL. */
export async function startApp(options: { store: Store; clock?: () => number; port?: number }) {
  const app = await NestFactory.create(appModule(options), new ExpressAdapter(), { logger: ['error', 'warn'] });
  await app.listen(options.port ?? 0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}` };
}
