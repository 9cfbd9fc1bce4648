import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
const [config, tool, args] = process.argv.slice(2);
const t = new StdioClientTransport({ command: process.execPath, args: ['/work/main/bin/run.js', 'serve', '--config', config], stderr: 'inherit' });
const c = new Client({ name: 'x', version: '1' });
await c.connect(t);
const r = await c.callTool({ name: tool, arguments: JSON.parse(args) });
console.log(JSON.stringify(r.structuredContent ?? r.content).slice(0, 1500));
await c.close();
