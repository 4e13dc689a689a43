import { HttpException } from '@nestjs/common';
import type { Decision } from '@floodgate/core';
import type { Denial } from '@floodgate/core/http';
import { setContentType } from './driver';
import type { NestRequest } from './options';

/**
 * A request the limit denies: an HttpException (429, or 503 when the store is out of reach and
 * `failMode` is 'closed'), so your exception filters see it as any other. `decision` is the
 * limiter's answer. Nest's default filter sends `getResponse()`: the RFC 9457 problem details the
 * other adapters send (the guard has set `Content-Type: application/problem+json` and the
 * rate-limit headers already), or the JSON your `message` option makes; a text `message` becomes
 * Nest's usual `{ statusCode, message }`. The ones the guard throws carry no stack trace: a denial
 * is an answer, not a fault, and capturing one cost more than the rest of the guard's work.
 */
export class RateLimitException extends HttpException {
  readonly decision: Decision;

  constructor(decision: Decision, status: number, body: string | object) {
    super(body, status, { description: 'Too Many Requests' });
    this.decision = decision;
    this.name = 'RateLimitException';
  }
}

/**
 * The exception for a denial the gate rendered (its rate-limit headers are already on `res`). A
 * JSON body (problem details, or a JSON `message`) is handed to Nest as an object, with its
 * Content-Type set on the response, so the default filter sends the same bytes and type as the
 * other adapters.
 */
export function denialException(denial: Denial, res: NestRequest): RateLimitException {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new RateLimitException(denial.decision, denial.status, denialBody(denial, res));
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function denialBody(denial: Denial, res: NestRequest): string | object {
  const body = denial.body;
  if (body === undefined) return 'Too Many Requests';
  // Problem details come as the object itself: Nest's filter writes its JSON, the only time it is made.
  if (body.json !== undefined) {
    setContentType(res, body.contentType);
    return body.json;
  }
  if (!body.contentType.includes('json')) return body.text;
  setContentType(res, body.contentType);
  return JSON.parse(body.text) as object;
}
