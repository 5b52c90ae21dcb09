import { afterAll } from 'vitest';
import { removeTempDirs } from './temp.js';

// Every test file removes the temp dirs it made (test/temp.ts), passed or failed.
afterAll(removeTempDirs);
