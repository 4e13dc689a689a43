import { HttpException } from '@nestjs/common';
import type { Decision } from '@floodgate/core';

/**
 * A request the limit denies: an HttpException (429, or 503 when the store is out of reach and
 * `failMode` is 'closed'), so your exception filters see it as any other. `decision` is the
 * limiter's answer. Nest's default filter sends `getResponse()`: the RFC 9457 problem details the
 * other adapters send (the guard has set `Content-Type: application/problem+json` and the
 * rate-limit headers already), or the JSON your `message` option makes; a text `message` becomes
 * Nest's usual `{ statusCode, message }`.
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
export function denialException(
  denial: { status: number; decision: Decision; body: { contentType: string; text: string } | undefined },
  setContentType: (value: string) => void,
): RateLimitException {
  const body = denial.body;
  if (body === undefined) return new RateLimitException(denial.decision, denial.status, 'Too Many Requests');
  if (!body.contentType.includes('json')) return new RateLimitException(denial.decision, denial.status, body.text);
  setContentType(body.contentType);
  return new RateLimitException(denial.decision, denial.status, JSON.parse(body.text) as object);
}
