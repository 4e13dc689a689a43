/** The `express4` dev dependency is Express 4 under another name; its API is typed like Express. */
declare module 'express4' {
  import express from 'express';
  export default express;
}
