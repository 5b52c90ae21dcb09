import { startElectronApp } from '../main/electron-app.js';
import { inAppRunner } from './in-app-runner.js';

/**
 * The Electron main process's entry (electron.vite.config.ts builds it as out/main/index.js). It
 * sits on the cli floor because it wires the CLI's dispatcher into the window's app for the
 * commands a terminal forwards (and a second instance's `rewind-app back 1`): `main` never
 * imports `cli`, so the wiring happens here.
 */
startElectronApp(inAppRunner);
