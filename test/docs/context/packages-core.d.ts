// Names the fragments of packages/core/README.md take from their surroundings.
declare const limiter: import('@floodgate/core').Limiter;
declare const ctx: import('@floodgate/core').KeyContext;
