import { Module } from '@nestjs/common';
import type { DynamicModule, Provider } from '@nestjs/common';
import { InvalidOptionTypeError } from '@floodgate/core';
import { FloodgateGuard } from './guard';
import { FloodgateService } from './service';
import { statusController } from './status';
import type { FloodgateModuleAsyncOptions, FloodgateModuleOptions, FloodgateModuleSetup } from './options';
import { FLOODGATE_OPTIONS } from './tokens';

/**
 * Floodgate for a Nest app. Register the guard app-wide with `{ provide: APP_GUARD, useClass:
 * FloodgateGuard }`, or on controllers and handlers with `@UseGuards(FloodgateGuard)`.
 *
 * @example
 * \@Module({
 *   imports: [FloodgateModule.forRoot({ limit: 100, window: '1m' })],
 *   providers: [{ provide: APP_GUARD, useClass: FloodgateGuard }],
 * })
 * class AppModule {}
 */
@Module({})
// biome-ignore lint/complexity/noStaticOnlyClass: Nest's dynamic modules are classes with static forRoot/forRootAsync.
export class FloodgateModule {
  /** The module with its limiter options (validated when the app starts, with a coded error naming the option). */
  static forRoot(options: FloodgateModuleOptions, setup: FloodgateModuleSetup = {}): DynamicModule {
    return FloodgateModule.module([{ provide: FLOODGATE_OPTIONS, useValue: options }], [], setup);
  }

  /** The module with options made by a factory (from ConfigService, a Redis client provider...). */
  static forRootAsync(options: FloodgateModuleAsyncOptions): DynamicModule {
    if (typeof options?.useFactory !== 'function') {
      throw new InvalidOptionTypeError('FloodgateModule.forRootAsync needs useFactory, a function making the options');
    }
    const provider: Provider = {
      provide: FLOODGATE_OPTIONS,
      useFactory: options.useFactory,
      inject: options.inject ?? [],
    };
    return FloodgateModule.module([provider], options.imports ?? [], options);
  }

  private static module(
    providers: Provider[],
    imports: NonNullable<DynamicModule['imports']>,
    setup: FloodgateModuleSetup,
  ): DynamicModule {
    const path = setup.statusPath;
    if (path !== undefined && (typeof path !== 'string' || path.length > 200)) {
      throw new InvalidOptionTypeError(
        `FloodgateModule statusPath must be a route path such as 'rate_limit', got ${String(path)}`,
      );
    }
    return {
      module: FloodgateModule,
      global: setup.isGlobal === true,
      imports,
      providers: [...providers, FloodgateService, FloodgateGuard],
      controllers: path === undefined ? [] : [statusController(path)],
      exports: [FloodgateService, FloodgateGuard, FLOODGATE_OPTIONS],
    };
  }
}
