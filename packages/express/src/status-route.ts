import type { Request } from 'express';

/** The little of Express' router a status route is found by (Express 4's own router, and `router` 2 in Express 5). */
interface Layer {
  handle?: unknown;
  route?: Route;
  method?: string;
  path?: string;
  /** Express 4: true, the matched path left in `path`; `router` 2: the match, with its `path`, or false. */
  match(path: string): unknown;
}
interface Route {
  stack: Layer[];
  methods: Record<string, boolean | undefined>;
}

/** The routing table's layers that can lead to a status handler: the routes serving one, and the routers. */
interface Candidates {
  length: number;
  routes: Layer[];
  routers: Layer[];
}

const MAX_DEPTH = 8;

/**
 * Whether Express will route `req` to one of the status handlers `isStatus` recognises, read from
 * the app's routing table: the middleware runs before the route, so only the table can tell it
 * that a request is for the status route (which must answer a client the middleware would refuse).
 * Routes on the app and in routers mounted on it are found; in a sub-app (an app mounted on
 * another), none are, and the handler warns instead. The table's layers are those of Express' own
 * router, the same in Express 4 and 5; its shape is checked, never assumed.
 */
export function statusRouteFinder(isStatus: (handle: unknown) => boolean): (req: Request) => boolean {
  const tables = new WeakMap<Layer[], Candidates>();
  const candidatesOf = (stack: Layer[]): Candidates => {
    let found = tables.get(stack);
    if (found === undefined || found.length !== stack.length) {
      found = {
        length: stack.length,
        routes: stack.filter((layer) => layer.route !== undefined && servesStatus(layer.route, isStatus)),
        routers: stack.filter((layer) => layer.route === undefined && Array.isArray(innerStack(layer))),
      };
      tables.set(stack, found);
    }
    return found;
  };
  const reaches = (stack: Layer[], path: string, method: string, depth: number): boolean => {
    const { routes, routers } = candidatesOf(stack);
    for (const layer of routes) {
      if (handlesMethod(layer.route as Route, method, isStatus) && matched(layer, path) !== undefined) return true;
    }
    if (depth >= MAX_DEPTH) return false;
    for (const layer of routers) {
      const prefix = matched(layer, path);
      if (prefix === undefined) continue;
      const rest = path.slice(prefix.length);
      if (reaches(innerStack(layer) as Layer[], rest.startsWith('/') ? rest : `/${rest}`, method, depth + 1))
        return true;
    }
    return false;
  };
  return (req) => {
    const stack = appStack(req.app as unknown as Record<string, unknown>);
    // The path as the app's router will see it: where the middleware is mounted, plus what is left
    // of the URL there (after any rewrite by an earlier middleware, which Express routes by too).
    const path = `${req.baseUrl ?? ''}${req.url.split('?')[0]}`;
    if (stack === undefined || !path.startsWith('/')) return false;
    return reaches(stack, path, req.method.toLowerCase(), 0);
  };
}

/** The top app's routing table (Express 4: `_router`; 5: `router`); none in a sub-app, whose paths are not the request's. */
function appStack(app: Record<string, unknown>): Layer[] | undefined {
  if (app.parent !== undefined) return undefined;
  // Express 4 throws on `app.router`: ask for it only when `_router` is not there.
  const router = (app._router ?? app.router) as { stack?: unknown } | undefined;
  return Array.isArray(router?.stack) ? (router.stack as Layer[]) : undefined;
}

/** A router mounted with `use` is a function carrying its own table. */
function innerStack(layer: Layer): unknown {
  const handle = layer.handle;
  return typeof handle === 'function' ? (handle as { stack?: unknown }).stack : undefined;
}

function servesStatus(route: Route, isStatus: (handle: unknown) => boolean): boolean {
  return Array.isArray(route.stack) && route.stack.some((layer) => isStatus(layer.handle));
}

/** A status handler on this route answers `method` (HEAD is served by a GET handler, as Express does). */
function handlesMethod(route: Route, method: string, isStatus: (handle: unknown) => boolean): boolean {
  const head = method === 'head' && route.methods?.head !== true;
  return route.stack.some(
    (layer) =>
      isStatus(layer.handle) &&
      (layer.method === undefined || layer.method === method || (head && layer.method === 'get')),
  );
}

/** The part of `path` the layer matches, by Express' own matcher; undefined for none (or a malformed URL). */
function matched(layer: Layer, path: string): string | undefined {
  try {
    const match = layer.match(path);
    if (match === true) return layer.path ?? '';
    const found = (match as { path?: unknown } | false | undefined) || undefined;
    return typeof found?.path === 'string' ? found.path : undefined;
  } catch {
    return undefined;
  }
}
