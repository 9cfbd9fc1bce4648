#!/usr/bin/env node
// The top frames of a V8 CPU profile (node --cpu-prof) by self time, and the same time summed by
// file, as two Markdown tables. V8 samples wall time: a frame the process was descheduled in
// (a write that woke its reader on a busy machine: `writev`, `writeUtf8String`) is charged the wait,
// so compare those rows with the process' system time (/proc), not with the JS rows.
// FROM=0.3 counts only the samples after the first 30% of the profile's time: a serve profiled
// under a benchmark's load starts up first (its modules, the config, the lock file's YAML), which
// can outweigh thousands of calls and hide the per-call frames.
// Usage: [FROM=fraction] node bench/profile-top.mjs file.cpuprofile [how many=10]
import { readFileSync } from 'node:fs';

const [file, many = '10'] = process.argv.slice(2);
if (!file) {
  console.error('Usage: [FROM=fraction] node bench/profile-top.mjs file.cpuprofile [how many=10]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const byFile = new Map();
const from = profile.startTime + Number(process.env.FROM ?? 0) * (profile.endTime - profile.startTime);
let at = profile.startTime;
// timeDeltas[i] is the time before samples[i]: each sample's frame holds the CPU for its delta.
profile.samples.forEach((id, i) => {
  at += profile.timeDeltas[i] ?? 0;
  if (at < from) return;
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const where = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/')}:${lineNumber + 1}`;
  self.set(where, (self.get(where) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const file = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/') || `(native) ${functionName}`;
  byFile.set(file, (byFile.get(file) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const idle = ['(idle)', '(program)', '(garbage collector)'];
// Shares of the time the process was busy: a server waits for its client most of a run.
const total = [...self].filter(([w]) => !w.startsWith('(idle)')).reduce((a, [, v]) => a + v, 0);
console.log(`| frame (self time) | ms | % of busy |`);
console.log('|---|---|---|');
for (const [where, us] of [...self]
  .sort((a, b) => b[1] - a[1])
  .filter(([w]) => !idle.some((i) => w.startsWith(i)))
  .slice(0, Number(many)))
  console.log(`| ${where} | ${(us / 1000).toFixed(0)} | ${((100 * us) / total).toFixed(1)} |`);
for (const name of idle.slice(1)) {
  const us = [...self].filter(([w]) => w.startsWith(name)).reduce((a, [, v]) => a + v, 0);
  console.log(`| ${name} | ${(us / 1000).toFixed(0)} | ${((100 * us) / total).toFixed(1)} |`);
}
console.log('');
console.log(`| file (self time) | ms | % of busy |`);
console.log('|---|---|---|');
for (const [file, us] of [...byFile]
  .sort((a, b) => b[1] - a[1])
  .filter(([f]) => !idle.some((i) => f === `(native) ${i}`))
  .slice(0, Number(many)))
  console.log(`| ${file} | ${(us / 1000).toFixed(0)} | ${((100 * us) / total).toFixed(1)} |`);
