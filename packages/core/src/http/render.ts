import { headersFor } from '../headers/build-headers';
import { deniedStatus, negotiateProblem } from '../problem';
import type { Decision } from '../decision';
import type { HttpConfig } from './options';

/** The rate-limit headers for a decision, per the middleware's header modes. */
export function renderHeaders(config: HttpConfig<never, never, unknown>, decision: Decision): Record<string, string> {
  return headersFor(decision, config, config.clock());
}

/**
 * Status, headers and body of a denied request: 503 when the store was unavailable, else the
 * `statusCode` option; the body from `message`, else RFC 9457 problem details negotiated on
 * `Accept`. No body when the user's `handler` will answer.
 */
export async function renderDenial<Req>(
  config: HttpConfig<Req, never, unknown>,
  req: Req,
  accept: string | undefined,
  decision: Decision,
) {
  const headers = renderHeaders(config as HttpConfig<never, never, unknown>, decision);
  const status = deniedStatus(decision, config.statusCode);
  if (config.handler !== undefined) return { status, headers };
  const custom = config.message === undefined ? undefined : await messageBody(config, req, decision);
  if (custom !== undefined) return { status, headers, body: custom };
  const problem = negotiateProblem(accept, decision, config.statusCode);
  return { status, headers, body: { contentType: problem.contentType, text: problem.body } };
}

async function messageBody<Req>(config: HttpConfig<Req, never, unknown>, req: Req, decision: Decision) {
  try {
    const message = await config.message?.(req, decision);
    if (typeof message === 'string') return { contentType: 'text/plain; charset=utf-8', text: message };
    return { contentType: 'application/json; charset=utf-8', text: JSON.stringify(message) };
  } catch {
    // A message function that fails still leaves the client a proper 429, with the default body.
    return undefined;
  }
}
