// `npm start`: build, migrate, then run the API and one worker side by side until Ctrl-C.
// In production run them as separate processes instead (npm run start:api / start:worker).
const { spawn, spawnSync } = require('node:child_process');

function runOrExit(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

runOrExit('npm', ['run', '-s', 'build']);
runOrExit('npm', ['run', '-s', 'cli', '--', 'db:migrate']);

const children = ['start:api', 'start:worker'].map((script) =>
  spawn('npm', ['run', '-s', script], { stdio: 'inherit' }),
);
const port = process.env.PORT ?? '3000';
console.log(
  `\nAPI on http://localhost:${port} (Swagger UI: http://localhost:${port}/docs, ` +
    `console: http://localhost:${port}/console).\n` +
    'Create a merchant and its sandbox key:  npm run -s cli -- merchants:create --name "My Shop"\n',
);

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 5000).unref();
}
for (const child of children) child.on('exit', (code) => stop(code ?? 1));
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
