import type { Server } from 'node:http';
import { Controller, Get, Inject, Module, Post, Req, UseGuards } from '@nestjs/common';
import type { INestApplication, Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FloodgateGuard, FloodgateModule, FloodgateService, RateLimit, SkipRateLimit } from '../src/index';
import type { FloodgateModuleOptions, NestRequest } from '../src/index';

/** The two HTTP platforms the guard supports. */
export const platforms = ['express', 'fastify'] as const;
export type Platform = (typeof platforms)[number];

export interface NestTestApp {
  url: string;
  /** The platform's Node HTTP server. */
  server: Server;
  close(): Promise<void>;
}

/** What the routes answer: the decision the handler saw. */
function seen(req: NestRequest) {
  const info = req.rateLimit;
  return info === undefined ? null : { remaining: info.remaining, rule: info.rule, limit: info.limit };
}

export interface AppShape {
  /** The guard: app-wide (APP_GUARD), or only on the `LimitedController` (`@UseGuards`). */
  guard?: 'app' | 'controller';
  /** One trusted proxy in front (the loopback test client). */
  trustProxy?: boolean;
  /** A subclass of the guard in its place. */
  guardClass?: Type<FloodgateGuard>;
  /** A second guard on AppController and LimitedController, besides the app's (APP_GUARD). */
  alsoOnControllers?: Type<FloodgateGuard>;
  statusPath?: string;
  /** forRootAsync instead of forRoot. */
  async?: boolean;
  /** Exception filters, registered app-wide (APP_FILTER). */
  filters?: Type[];
}

/**
 * One Nest app on `platform`, with:
 *   GET  /items, /other     the module's rules
 *   POST /login             @RateLimit({ limit: 2, window: '1m' }): its own counter
 *   GET  /quiet             @RateLimit({ message }) : the module's counters, another 429 body
 *   GET  /health            @SkipRateLimit()
 *   GET  /no-burst          @SkipRateLimit('burst')
 *   GET  /control/:op       FloodgateService's reset, block, unblock, peek for the caller
 *   GET  /limited/a, /b     LimitedController: @RateLimit({ limit: 1, ... }) on the class
 *   GET  /open              OpenController: no guard when `guard` is 'controller'
 */
export async function startNest(
  platform: Platform,
  options: FloodgateModuleOptions,
  shape: AppShape = {},
): Promise<NestTestApp> {
  const guardClass = shape.guardClass ?? FloodgateGuard;
  const controllerGuard = shape.guard === 'controller' ? guardClass : shape.alsoOnControllers;
  const classGuard = controllerGuard === undefined ? [] : [UseGuards(controllerGuard)];

  @Controller()
  class AppController {
    constructor(@Inject(FloodgateService) private readonly floodgate: FloodgateService) {}

    @Get('items')
    items(@Req() req: NestRequest) {
      return seen(req);
    }

    @Get('other')
    other(@Req() req: NestRequest) {
      return seen(req);
    }

    @RateLimit({ limit: 2, window: '1m' })
    @Post('login')
    login(@Req() req: NestRequest) {
      return seen(req);
    }

    @RateLimit({ message: { error: 'quiet please' } })
    @Get('quiet')
    quiet(@Req() req: NestRequest) {
      return seen(req);
    }

    @SkipRateLimit()
    @Get('health')
    health(@Req() req: NestRequest) {
      return { ok: true, seen: seen(req) };
    }

    @SkipRateLimit('burst')
    @Get('no-burst')
    noBurst(@Req() req: NestRequest) {
      return seen(req);
    }

    @SkipRateLimit()
    @Get('control/:op')
    async control(@Req() req: NestRequest) {
      const op = String(req.params.op);
      if (op === 'peek') {
        const decision = await this.floodgate.peek(req);
        return { allowed: decision.allowed, remaining: decision.remaining };
      }
      if (op === 'reset') await this.floodgate.reset(req);
      else if (op === 'block') await this.floodgate.block(req, '1h');
      else if (op === 'unblock') await this.floodgate.unblock(req);
      return { done: op };
    }
  }
  for (const decorate of classGuard) decorate(AppController);

  @RateLimit({ limit: 1, window: '1m' })
  @Controller('limited')
  class LimitedController {
    @Get('a')
    a(@Req() req: NestRequest) {
      return seen(req);
    }

    @Get('b')
    b(@Req() req: NestRequest) {
      return seen(req);
    }
  }
  for (const decorate of classGuard) decorate(LimitedController);

  @Controller('open')
  class OpenController {
    @Get()
    open(@Req() req: NestRequest) {
      return seen(req);
    }
  }

  const setup = shape.statusPath === undefined ? {} : { statusPath: shape.statusPath };
  const floodgate = shape.async
    ? FloodgateModule.forRootAsync({ useFactory: async () => options, ...setup })
    : FloodgateModule.forRoot(options, setup);

  @Module({
    imports: [floodgate],
    controllers: [AppController, LimitedController, OpenController],
    providers: [
      ...(shape.guard === 'controller' ? [] : [{ provide: APP_GUARD, useClass: guardClass }]),
      ...(shape.filters ?? []).map((filter) => ({ provide: APP_FILTER, useClass: filter })),
    ],
  })
  class AppModule {}

  let app: INestApplication;
  if (platform === 'express') {
    app = await NestFactory.create(AppModule, new ExpressAdapter(), { logger: false, abortOnError: false });
    if (shape.trustProxy) app.getHttpAdapter().getInstance().set('trust proxy', ['127.0.0.1']);
  } else {
    const adapter = new FastifyAdapter(shape.trustProxy ? { trustProxy: ['127.0.0.1'] } : {});
    app = await NestFactory.create<NestFastifyApplication>(AppModule, adapter, { logger: false, abortOnError: false });
  }
  await app.listen(0, '127.0.0.1');
  return {
    url: (await app.getUrl()).replace('[::1]', '127.0.0.1'),
    server: app.getHttpServer(),
    close: () => app.close(),
  };
}

/** The problem details a 429 of a spent `ip` layer (window 1 minute) carries, in the order every adapter writes them. */
export const QUOTA_EXCEEDED_IP = {
  type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
  title: 'Too Many Requests',
  status: 429,
  detail: 'Too many requests; try again in 60 seconds.',
  retryAfter: 60,
  'violated-policies': ['ip'],
};
