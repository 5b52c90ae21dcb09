import { BrowserWindow, app, ipcMain, session, shell, type IpcMainInvokeEvent } from 'electron';
import { join } from 'node:path';
import { OPERATION_NAMES, ipcChannel } from '../shared/operations.js';
import { RewindService } from './service/rewind-service.js';

const service = new RewindService();
const windows = new Set<number>();

function isOurSender(event: IpcMainInvokeEvent): boolean {
  // Only frames of our own windows, showing our own page, may call the service.
  const frame = event.senderFrame;
  if (!frame || !windows.has(event.sender.id)) return false;
  const url = frame.url;
  return url.startsWith('file://') || (!!process.env.ELECTRON_RENDERER_URL && url.startsWith(process.env.ELECTRON_RENDERER_URL));
}

function createWindow(): void {
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
  windows.add(win.webContents.id);
  const id = win.webContents.id;
  win.on('closed', () => windows.delete(id));
  win.once('ready-to-show', () => win.show());
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  if (process.env.ELECTRON_RENDERER_URL) void win.loadURL(process.env.ELECTRON_RENDERER_URL);
  else void win.loadFile(join(import.meta.dirname, '../renderer/index.html'));
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    const win = BrowserWindow.getAllWindows()[0];
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  void app.whenReady().then(() => {
    session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
    for (const name of OPERATION_NAMES) {
      ipcMain.handle(ipcChannel(name), async (event, payload: unknown) => {
        if (!isOurSender(event)) return { ok: false, error: { code: 'FORBIDDEN', message: 'sender is not a Rewind window' } };
        return service.handle(name, payload);
      });
    }
    createWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createWindow();
    });
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}
