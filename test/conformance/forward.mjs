#!/usr/bin/env node
// The conformance suite's client command where a test runs the clients in its own process
// (test/helpers/conformance-clients.ts): this short process hands the host its arguments, folder
// and environment (the suite's MCP_CONFORMANCE_* among them) over a Unix socket, prints on stderr
// what the client printed, and exits with the client's status. It acknowledges the status ("ack")
// before it exits, so that the host knows the status reached the suite: a forward the suite killed
// at its timeout never acknowledges.
//   conformance client --command "node test/conformance/forward.mjs SOCKET plain|auth|auto" --scenario ...
import { connect } from 'node:net';

const [socket, kind] = process.argv.slice(2);
const url = process.argv.at(-1);
const host = connect(socket);
host.on('error', (error) => {
  process.stderr.write(`forward.mjs: the client host at ${socket}: ${error.message}\n`);
  process.exitCode = 1;
});
host.write(`${JSON.stringify({ kind, url, env: process.env, cwd: process.cwd() })}\n`);
host.setEncoding('utf8');
let pending = '';
host.on('data', (chunk) => {
  pending += chunk;
  for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
    const message = JSON.parse(pending.slice(0, end));
    pending = pending.slice(end + 1);
    if (message.say !== undefined) process.stderr.write(message.say);
    if (message.exit !== undefined) {
      process.exitCode = message.exit;
      host.end('ack\n');
    }
  }
});
host.on('close', () => {
  if (process.exitCode !== undefined) return;
  process.stderr.write('forward.mjs: the client host closed without a status\n');
  process.exitCode = 1;
});
