import { spawn } from 'node:child_process';

const CANDIDATES: { cmd: string; args: string[]; platforms?: NodeJS.Platform[] }[] = [
  { cmd: 'pbcopy', args: [], platforms: ['darwin'] },
  { cmd: 'clip.exe', args: [], platforms: ['win32', 'linux'] },
  { cmd: 'wl-copy', args: [] },
  { cmd: 'xclip', args: ['-selection', 'clipboard'] },
  { cmd: 'xsel', args: ['--clipboard', '--input'] },
];

function tryCopy(cmd: string, args: string[], text: string): Promise<boolean> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(cmd, args, { stdio: ['pipe', 'ignore', 'ignore'] });
    } catch {
      resolve(false);
      return;
    }
    const timer = setTimeout(() => {
      child.kill();
      resolve(false);
    }, 3000);
    child.on('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
  });
}

/** Best effort: the first clipboard tool that works, or null when none does. */
export async function copyToClipboard(text: string, platform: NodeJS.Platform = process.platform): Promise<string | null> {
  for (const c of CANDIDATES) {
    if (c.platforms && !c.platforms.includes(platform)) continue;
    if (await tryCopy(c.cmd, c.args, text)) return c.cmd;
  }
  return null;
}
