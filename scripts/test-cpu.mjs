#!/usr/bin/env node
// Sums up what test/helpers/cpu-meter.ts recorded (MCPKIT_TEST_CPU=FILE node scripts/run-tests.mjs ...):
// CPU seconds per test file, largest first, and the total. Usage: node scripts/test-cpu.mjs FILE [TOP]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [file, top = '40'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/test-cpu.mjs FILE [TOP]  (FILE: what MCPKIT_TEST_CPU named)');
  process.exit(2);
}
const rows = readFileSync(file, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line))
  .map((r) => ({ ...r, file: relative(process.cwd(), r.file), total: r.self + r.children }))
  .sort((a, b) => b.total - a.total);
const sum = (key) => rows.reduce((s, r) => s + r[key], 0);
console.log('total  self  children  file');
for (const r of rows.slice(0, Number(top)))
  console.log(`${r.total.toFixed(1).padStart(6)} ${r.self.toFixed(1).padStart(5)} ${r.children.toFixed(1).padStart(8)}  ${r.file}`);
console.log(`${sum('total').toFixed(1).padStart(6)} ${sum('self').toFixed(1).padStart(5)} ${sum('children').toFixed(1).padStart(8)}  all ${rows.length} files`);
