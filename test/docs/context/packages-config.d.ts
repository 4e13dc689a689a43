// Names the fragments of packages/config/README.md take from their surroundings.
declare const app: import('express').Express;
declare const redis: import('ioredis').Redis;
