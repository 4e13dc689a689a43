import { ABORTED, checkStep, Denial, Gate, inTurns, isThenable, parseHttpOptions } from '@floodgate/core/http';
import type { GateResult, HttpConfig, HttpDriver, SharedCounters } from '@floodgate/core/http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { FloodgateHandler } from './types';

/** One set of options (the plugin's, or a route's override) as an onRequest hook around its Gate. */
export interface GateHook {
  hook: onRequestHookHandler;
  engine: HttpConfig<FastifyRequest>['engine'];
  gate: Gate<FastifyRequest, FastifyReply>;
  /** Answers a denial outside the hook (the status route's refusal). */
  deny(denial: Denial, request: FastifyRequest, reply: FastifyReply): void;
}

export function gateHook(
  options: unknown,
  where: string,
  driver: HttpDriver<FastifyRequest, FastifyReply>,
  counters?: SharedCounters<FastifyRequest>,
): GateHook {
  const config = parseHttpOptions<FastifyRequest, FastifyReply, FloodgateHandler>(where, options, [], counters);
  const gate = new Gate(config, driver);

  const apply = (result: GateResult, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (result === undefined) return done();
    if (result === ABORTED) {
      // The client is gone: end the exchange here so nothing runs for it and the connection is freed.
      reply.hijack();
      reply.raw.end();
      return;
    }
    if (result instanceof Denial) return deny(result, request, reply, done);
    request.rateLimit = result;
    const raw = reply.raw;
    if (gate.needsFinish(result)) {
      if (raw.closed) return gate.finish(result, request, reply);
      gate.finishWith(raw, result, request, reply);
    }
    done();
  };

  // Replying from a callback hook: send, and do not call done (Fastify then skips the handler).
  const deny = (denial: Denial, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (denial.body !== undefined) {
      reply.code(denial.status).type(denial.body.contentType).send(denial.body.text);
      return;
    }
    try {
      const answered = config.handler?.(request, reply, denial.decision);
      if (isThenable(answered)) Promise.resolve(answered).catch(done);
    } catch (error) {
      done(error as Error);
    }
  };

  return {
    hook: inTurns('floodgateOnRequest', checkStep(gate, undefined, earlierDecision, apply)),
    engine: config.engine,
    gate,
    deny: (denial, request, reply) =>
      deny(denial, request, reply, (error?: Error) => {
        if (error !== undefined) reply.send(error);
      }),
  };
}

const earlierDecision = (request: FastifyRequest): unknown => request.rateLimit;
