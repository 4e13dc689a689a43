import type { HeaderSetter } from './headers';

/** What an adapter knows about the app's proxy trust, for the warnings. */
export type ProxyTrust = 'none' | 'all' | 'some';

/**
 * How an adapter reads a framework's request and writes its response. Every member is a plain
 * function of the request or response, made once per middleware: the gate needs no closure per request.
 */
export interface HttpDriver<Req, Res> {
  /** One request header, by lower-case name. */
  header(req: Req, name: string): string | undefined;
  /** The client address as the framework's trusted-proxy logic (or the adapter's) resolved it. */
  ip(req: Req): string | undefined;
  setHeader: HeaderSetter<Res>;
  /** How far the app trusts proxies, for the warnings; asked only until they have been given. */
  trust(req: Req): ProxyTrust;
  /** The setting's name for warnings (`app.set('trust proxy')`). */
  readonly trustHint: string;
  /** Aborts when the client goes away; asked for only when a shaping wait needs it. */
  abortSignal(req: Req, res: Res): AbortSignal | undefined;
}

/** Node's `IncomingHttpHeaders` shape, without importing Node types. */
export type NodeHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * One header of a Node request (Express, Fastify) by lower-case name; repeated fields are joined
 * with `, ` as HTTP allows.
 */
export function nodeHeader(headers: NodeHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' || value === undefined ? value : value.join(', ');
}

/** The parts of a Node `ServerResponse` the adapters need, without importing Node types. */
export interface NodeResponse {
  once(event: 'close' | 'finish', listener: () => void): unknown;
  readonly writableFinished: boolean;
  readonly statusCode: number;
  /** Set when the response was destroyed with an error (a body stream that failed). */
  readonly errored?: unknown;
}

/**
 * The status of a response that has closed, or undefined when it did not end well: the client
 * left first, or the response was destroyed with an error (a streamed body whose source failed
 * may already have been ended, then destroyed).
 */
export function closedStatus(res: NodeResponse): number | undefined {
  return res.writableFinished && res.errored == null ? res.statusCode : undefined;
}

/** An AbortSignal that fires when the Node response closes; made only for a shaping wait. */
export function closeSignal(res: NodeResponse): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  return gone.signal;
}
