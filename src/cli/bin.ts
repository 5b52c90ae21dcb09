import { run } from './main.js';
import { stdinAbandoned } from './read-stdin.js';

// A reader that stops early (`| head`) closes the pipe: that ends the output, it is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

// The process exits with the command's code once output is flushed.
run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // A hook that gave up on an input that never ended (logged): its read, blocked in the thread
  // pool, holds even process.exit() (libuv joins its threads at exit), so the process ends itself
  // by signal, at once, rather than leave the agent waiting out its own hook timeout.
  if (stdinAbandoned) process.kill(process.pid, 'SIGKILL');
});
