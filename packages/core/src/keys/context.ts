/**
 * What a key function sees of a request; each adapter builds one.
 * `ip` is the client address as the framework's trusted-proxy logic resolved it.
 */
export interface KeyContext<Req = unknown> {
  ip: string | undefined;
  header(name: string): string | undefined;
  req: Req;
}

/** Returns the identity for one layer, or undefined when the layer does not apply to the request. */
export type KeyFunction<Req = unknown> = (ctx: KeyContext<Req>) => string | undefined | Promise<string | undefined>;
