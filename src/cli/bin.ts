import { run } from './main.js';

// A reader that stops early (`| head`) closes the pipe: that ends the output, it is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

// The process exits with the command's code once output is flushed.
run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
