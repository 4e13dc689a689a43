import type { KeyContext } from '../keys/context';
import type { Priority } from '../limiter/types';
import type { HttpDriver } from './driver';

const UNRESOLVED = Symbol('unresolved');

/** What reads the client address for a context: the gate, which also warns when there is none. */
export interface AddressSource<Req> {
  addressOf(req: Req): string | undefined;
  readonly driver: HttpDriver<Req, never>;
}

/**
 * The KeyContext of one HTTP request. The client address is resolved on first use: a policy keyed
 * by header or user never pays for the framework's proxy walk.
 */
export class RequestContext<Req> implements KeyContext<Req> {
  readonly req: Req;
  /** The priority the middleware (or the route's) gives every request it decides, if it gives one. */
  readonly priority: Priority | undefined;
  readonly #source: AddressSource<Req>;
  #ip: string | undefined | typeof UNRESOLVED = UNRESOLVED;

  constructor(req: Req, source: AddressSource<Req>, priority?: Priority) {
    this.req = req;
    this.priority = priority;
    this.#source = source;
  }

  get ip(): string | undefined {
    if (this.#ip === UNRESOLVED) this.#ip = this.#source.addressOf(this.req);
    return this.#ip;
  }

  header(name: string): string | undefined {
    return this.#source.driver.header(this.req, name.toLowerCase());
  }
}
