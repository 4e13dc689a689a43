import { closeSignal, nodeHeader } from '@floodgate/core/http';
import type { HttpDriver, NodeResponse, ProxyTrust } from '@floodgate/core/http';
import { describeTrust } from '@floodgate/core/http';
import type { NestRequest } from './options';

/** Where the guard leaves itself on the request: its `getTracker` names the client, when a rule asks. */
export const TRACKER = Symbol('floodgate.tracker');

/** What the guard offers the driver: who the client is. */
export interface Tracker {
  getTracker(req: NestRequest): string | undefined;
}

/**
 * The Node response under the platform's: Fastify's `reply.raw`, Express' `res` itself. Undefined
 * when there is none (a GraphQL context made without `res`).
 */
export function nodeResponse(res: NestRequest): NodeResponse | undefined {
  if (res === undefined || res === null) return undefined;
  const raw = res.raw ?? res;
  return typeof raw.once === 'function' ? (raw as NodeResponse) : undefined;
}

/**
 * The proxy trust each platform applies: Express' `trust proxy` setting; on Fastify the
 * `trustProxy` option, which shows as `request.ips` (set only when some proxy is trusted).
 */
function trust(req: NestRequest): ProxyTrust {
  const app = req.app;
  if (app !== undefined && typeof app.get === 'function') return describeTrust(app.get('trust proxy'));
  return Array.isArray(req.ips) ? 'some' : 'none';
}

/**
 * Reads the request of either platform: the headers are Node's on both; the client address is the
 * one the guard's tracker chose (default `req.ip`: Express' and Fastify's own, after their trusted
 * proxies); headers go through Express' `res.setHeader` or Fastify's `reply.header`.
 */
export const nestDriver: HttpDriver<NestRequest, NestRequest> = {
  header: (req, name) => nodeHeader(req.headers ?? {}, name),
  ip: (req) => {
    const tracker = req[TRACKER] as Tracker | undefined;
    const ip = tracker === undefined ? req.ip : tracker.getTracker(req);
    return typeof ip === 'string' && ip !== '' ? ip : undefined;
  },
  setHeader(res, name, value) {
    if (res === undefined || res === null) return;
    // Express' res is Node's (setHeader); Fastify's reply has none, and header() instead.
    if (typeof res.setHeader === 'function') {
      if (res.headersSent !== true) res.setHeader(name, value);
    } else if (res.raw !== undefined && typeof res.header === 'function') res.header(name, value);
  },
  trust,
  trustHint: "app.set('trust proxy') on Express, or the FastifyAdapter's trustProxy option",
  abortSignal: (_req, res) => {
    const raw = nodeResponse(res);
    return raw === undefined ? undefined : closeSignal(raw);
  },
};

/**
 * Sets the Content-Type of a denial's body before Nest's exception filter writes it. On Express,
 * Nest's adapter replaces any string Content-Type not starting with `application/json` with
 * `application/json` for an error body (with a warning); given as a one-element list, the header
 * is left alone by that check and by `res.json`, and Node sends it as one field line.
 */
export function setContentType(res: NestRequest, value: string): void {
  if (res === undefined || res === null) return;
  if (res.raw !== undefined && typeof res.header === 'function') res.header('Content-Type', value);
  else if (typeof res.setHeader === 'function' && res.headersSent !== true) res.setHeader('Content-Type', [value]);
}
