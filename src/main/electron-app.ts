import { BrowserWindow, app, ipcMain, session, shell, type IpcMainInvokeEvent } from 'electron';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { IPC_EVENT_CHANNEL, OPERATION_NAMES, ipcChannel } from '../shared/operations.js';
import { findDir, type ForwardedCommands } from './app-runtime.js';
import { socketPath, startSocketDoor } from './doors/socket-door.js';
import { RewindService } from './service/rewind-service.js';

// The installed hooks need plain Node: the `node` on PATH, else this Electron running as Node.
function nodeForHooks(): string {
  try {
    return execFileSync(process.platform === 'win32' ? 'where' : 'which', ['node'], { encoding: 'utf8' }).split('\n')[0]!.trim() || process.execPath;
  } catch {
    return process.execPath;
  }
}

const windows = new Set<number>();

function isOurSender(event: IpcMainInvokeEvent): boolean {
  // Only our own windows, showing our own page, may call the service.
  const frame = event.senderFrame;
  if (!frame || !windows.has(event.sender.id)) return false;
  const url = frame.url;
  return url.startsWith('file://') || (!!process.env.ELECTRON_RENDERER_URL && url.startsWith(process.env.ELECTRON_RENDERER_URL));
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    title: 'Rewind',
    show: false,
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  const id = win.webContents.id;
  windows.add(id);
  win.on('closed', () => windows.delete(id));
  win.once('ready-to-show', () => win.show());
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  if (process.env.ELECTRON_RENDERER_URL) void win.loadURL(process.env.ELECTRON_RENDERER_URL);
  else void win.loadFile(join(import.meta.dirname, '../renderer/index.html'));
  return win;
}

/** `rewind-app back 1` etc. launched as a second instance: performed here, shown in the window. */
function commandFromArgv(argv: string[]): string[] | null {
  const i = argv.findIndex((a) => ['back', 'restore', 'checkpoint', 'undo', 'revert', 'redo'].includes(a));
  return i === -1 ? null : argv.slice(i);
}

/**
 * The window's app. The entry (`src/cli/electron-main.ts`, built as out/main/index.js) hands in
 * the runner for forwarded CLI commands: the CLI's dispatcher is a floor up and `main` never
 * imports `cli`.
 */
export function startElectronApp(forwarded: ForwardedCommands): void {
  const appRoot = join(import.meta.dirname, '..', '..');
  const cli = { node: nodeForHooks(), script: join(appRoot, 'out', 'cli', 'rewind-app.mjs') };
  const service = new RewindService({
    claudeRoot: process.env.CLAUDE_CONFIG_DIR || undefined,
    demo: process.env.REWIND_DEMO === '1',
    resourcesDir: findDir(appRoot, 'resources') ?? undefined,
    cli,
    version: app.getVersion(),
    workerScript: findDir(import.meta.dirname, 'engine-worker.js') ?? undefined,
    deferWatch: true,
    remotes: true,
  });
  const runCommand = forwarded(service, cli);
  if (!app.requestSingleInstanceLock()) {
    app.quit();
  } else {
    app.on('second-instance', (_e, argv, cwd) => {
      const win = BrowserWindow.getAllWindows()[0];
      if (win) {
        if (win.isMinimized()) win.restore();
        win.focus();
      }
      const cmd = commandFromArgv(argv);
      if (cmd) void runCommand({ argv: cmd, cwd, env: { ...process.env } as Record<string, string> });
    });
    void app.whenReady().then(async () => {
      session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
      for (const name of OPERATION_NAMES) {
        ipcMain.handle(ipcChannel(name), async (event, payload: unknown) => {
          if (!isOurSender(event)) return { ok: false, error: { code: 'FORBIDDEN', message: 'sender is not a Rewind window' } };
          return service.handle(name, payload);
        });
      }
      service.onEvent((e) => {
        for (const w of BrowserWindow.getAllWindows()) if (windows.has(w.webContents.id)) w.webContents.send(IPC_EVENT_CHANNEL, e);
      });
      await service.start();
      await startSocketDoor(socketPath(), runCommand).catch(() => null);
      createWindow();
      const first = commandFromArgv(process.argv);
      if (first) void runCommand({ argv: first, cwd: process.cwd(), env: { ...process.env } as Record<string, string> });
      app.on('activate', () => {
        if (BrowserWindow.getAllWindows().length === 0) createWindow();
      });
    });
    app.on('window-all-closed', () => {
      if (process.platform !== 'darwin') app.quit();
    });
    app.on('will-quit', () => void service.close());
  }
}
