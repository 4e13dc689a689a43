import { Controller, Get, Inject, Req, Res, SetMetadata } from '@nestjs/common';
import type { StatusReport } from '@floodgate/core/http';
import { nestDriver } from './driver';
import { denialException } from './exception';
import type { NestRequest } from './options';
import { FloodgateService } from './service';
import { STATUS_ROUTE_METADATA } from './tokens';

/**
 * A controller answering `GET <path>` with the caller's standing under the module's own rules, as
 * GitHub's `/rate_limit` does: `{ resources: { <rule>: { limit, remaining, used, reset } } }`
 * (reset in epoch seconds), with the usual headers. The guard never charges it, so a limited
 * client gets its answer; it has its own limit of 60 calls a minute per client address.
 * FloodgateModule.forRoot(options, { statusPath }) registers it.
 */
export function statusController(path: string): new (...args: never[]) => unknown {
  @SetMetadata(STATUS_ROUTE_METADATA, true)
  @Controller(path)
  class FloodgateStatusController {
    constructor(@Inject(FloodgateService) private readonly floodgate: FloodgateService) {}

    @Get()
    async status(@Req() req: NestRequest, @Res({ passthrough: true }) res: NestRequest): Promise<StatusReport> {
      const report = await this.floodgate.status(req, res);
      if (this.floodgate.isDenial(report)) throw denialException(report, res);
      nestDriver.setHeader(res, 'Cache-Control', 'no-store');
      return report;
    }
  }
  return FloodgateStatusController;
}
