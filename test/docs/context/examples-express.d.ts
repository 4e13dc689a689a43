// Names the excerpt of examples/express/src/app.js in examples/express/README.md takes from the file.
declare const app: import('express').Express;
declare const store: import('@floodgate/express').Store;
declare const login: import('express').RequestHandler;
declare const authenticate: import('express').RequestHandler;
declare namespace Express {
  interface Request {
    /** Set by the example's stand-in authentication. */
    user?: { id: string };
  }
}
