import { homedir } from 'node:os';
import { join } from 'node:path';
import { tempDirSync } from './temp.js';

// Every unit test file runs as on a fresh machine: an empty home of its own, and none of the
// user's agent data, app state or agent session variables in sight (running `npm test` inside an
// agent's session sets some). A test that needs any of it makes it in its own temp dirs.
const realHome = homedir();
const home = tempDirSync('rewind-home-');
// npm keeps the user's cache and settings (the packaging test installs the packed CLI offline).
process.env.npm_config_userconfig ??= join(realHome, '.npmrc');
// (On Windows npm's cache is under %LOCALAPPDATA%, which stays.)
if (process.platform !== 'win32') process.env.npm_config_cache ??= join(realHome, '.npm');
Object.assign(process.env, {
  HOME: home,
  USERPROFILE: home,
  APPDATA: join(home, 'AppData', 'Roaming'),
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_CACHE_HOME: join(home, '.cache'),
  XDG_STATE_HOME: join(home, '.local', 'state'),
  XDG_RUNTIME_DIR: join(home, 'run'),
});
for (const name of ['CLAUDE_CONFIG_DIR', 'CLAUDE_PROJECT_DIR', 'CODEX_HOME', 'FACTORY_HOME_OVERRIDE', 'QWEN_HOME', 'QWEN_RUNTIME_DIR', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'REWIND_SOCKET', 'REWIND_TRANSCRIPT_PATH', 'REWIND_PROJECT_ROOT', 'REWIND_CONFIG_DIR', 'REWIND_PRICES', 'REWIND_DEMO']) delete process.env[name];
