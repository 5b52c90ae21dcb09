// `npm start`: build if needed, then open Rewind on the user's Claude data (or the bundled demo).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const cli = join(root, 'out', 'cli', 'rewind-app.mjs');
if (!existsSync(cli) || !existsSync(join(root, 'out', 'renderer', 'index.html'))) {
  const b = spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit', cwd: root });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
const r = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
