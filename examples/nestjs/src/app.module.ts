import { Controller, Get, HttpCode, Module, Post, Req } from '@nestjs/common';
import type { MiddlewareConsumer, NestModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import {
  FloodgateGuard,
  FloodgateModule,
  layered,
  RateLimit,
  SkipRateLimit,
  slidingWindow,
  tokenBucket,
} from '@floodgate/nestjs';
import type { FloodgateModuleOptions, NestRequest, Store } from '@floodgate/nestjs';

/** Stands in for real authentication: `Authorization: Bearer <user id>` signs the request in. */
function fakeAuth(req: NestRequest, _res: unknown, next: () => void): void {
  const match = /^Bearer ([\w-]{1,64})$/.exec(req.headers.authorization ?? '');
  if (match) req.user = { id: match[1] };
  next();
}

@Controller()
class LoginController {
  // Stricter, and counted on its own: 5 requests per minute per client IP, under the prefix 'login'.
  @RateLimit({ prefix: 'login', limit: 5, window: '1m' })
  @Post('login')
  @HttpCode(200)
  login() {
    return { ok: true };
  }
}

@Controller('api')
class ApiController {
  // Never limited, and sent no rate-limit headers.
  @SkipRateLimit()
  @Get('health')
  health() {
    return { ok: true };
  }

  @Get('items')
  items(@Req() req: NestRequest) {
    return { user: req.user?.id ?? null, remaining: req.rateLimit?.remaining };
  }
}

/**
 * The app's module. Every route is limited by the global guard under the module's rules: every
 * client IP gets 100 requests per minute; a signed-in user also gets a bucket of 10 that refills
 * 1 per second. `store` is a MemoryStore or a RedisStore; `clock` is only for tests.
 */
export function appModule({ store, clock }: { store: Store; clock?: () => number }) {
  const options: FloodgateModuleOptions = {
    store,
    ...(clock === undefined ? {} : { clock }),
    prefix: 'api',
    limits: layered({
      ip: slidingWindow({ limit: 100, window: '1m' }),
      user: { id: (req: NestRequest) => req.user?.id, algorithm: tokenBucket({ capacity: 10, refillRate: 1 }) },
    }),
  };

  @Module({
    imports: [FloodgateModule.forRoot(options)],
    controllers: [LoginController, ApiController],
    providers: [{ provide: APP_GUARD, useClass: FloodgateGuard }],
  })
  class AppModule implements NestModule {
    configure(consumer: MiddlewareConsumer) {
      consumer.apply(fakeAuth).forRoutes('*');
    }
  }
  return AppModule;
}
