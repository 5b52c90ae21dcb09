import { run } from './main.js';

// The process exits with the command's code once output is flushed.
run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
