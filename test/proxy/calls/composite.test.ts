import type { CallToolResult } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { runComposite, stepValue, type RunStep } from '../../../src/proxy/calls/composite.js';
import { renderTemplate } from '../../../src/proxy/calls/template.js';

const text = (t: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError } : {}) });

describe('renderTemplate', () => {
  const scope = { inputs: { q: 'mcp', n: 3, tags: ['a'] }, steps: { first: { result: { items: [{ id: 7 }] } } } };
  it.each([
    ['{inputs.q}', 'mcp'],
    ['{inputs.n}', 3],
    ['{inputs.tags}', ['a']],
    ['find {inputs.q} x{inputs.n}', 'find mcp x3'],
    ['{steps.first.result.items.0.id}', 7],
    ['ids: {steps.first.result.items}', 'ids: [{"id":7}]'],
    ['{not.a.placeholder}', '{not.a.placeholder}'],
    [{ a: ['{inputs.q}', { b: '{inputs.n}' }] }, { a: ['mcp', { b: 3 }] }],
    [42, 42],
  ])('%j', (template, expected) => {
    expect(renderTemplate(template, scope)).toEqual(expected);
  });
  it('names a path that leads nowhere', () => {
    expect(() => renderTemplate('{inputs.missing}', scope)).toThrow('{inputs.missing} does not resolve: "missing" is missing');
  });
});

describe('stepValue', () => {
  it.each([
    [{ content: [], structuredContent: { a: 1 } }, { a: 1 }],
    [text('{"a":2}'), { a: 2 }],
    [text('plain'), 'plain'],
  ] as [CallToolResult, unknown][])('%#', (result, expected) => expect(stepValue(result)).toEqual(expected));
});

describe('runComposite', () => {
  const calls: [string, unknown][] = [];
  const run: RunStep = async (tool, args) => {
    calls.push([tool, args]);
    if (tool === 'gh.fail') return text('{"error":{"code":"UPSTREAM_ERROR","message":"rate limited"}}', true);
    if (tool === 'gh.throw') throw new Error('server gone');
    return text(JSON.stringify({ tool, args }));
  };

  it('parallel: runs every step, a failing one yields { error } and the rest succeed', async () => {
    calls.length = 0;
    const out = await runComposite(
      { parallel: { code: { tool: 'gh.search_code', args: { q: '{inputs.query}' } }, issues: { tool: 'gh.fail' }, gone: { tool: 'gh.throw' } } },
      { query: 'x' },
      run,
    );
    expect(out).toEqual({
      failed: false,
      output: { code: { result: { tool: 'gh.search_code', args: { q: 'x' } } }, issues: { error: 'rate limited' }, gone: { error: 'server gone' } },
    });
  });

  it('parallel: steps run concurrently', async () => {
    let running = 0;
    let peak = 0;
    const slow: RunStep = async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 20));
      running--;
      return text('ok');
    };
    await runComposite({ parallel: { a: { tool: 'x' }, b: { tool: 'y' }, c: { tool: 'z' } } }, {}, slow);
    expect(peak).toBe(3);
  });

  it('chain: later steps use earlier results; the last result is the result', async () => {
    const out = await runComposite(
      {
        chain: [
          { name: 'first', tool: 'a.one', args: { q: '{inputs.q}' } },
          { tool: 'a.two', args: { prev: '{steps.first.result.args.q}' } },
        ],
      },
      { q: 'hello' },
      run,
    );
    expect(out.failed).toBe(false);
    expect(out.output.result).toEqual({ tool: 'a.two', args: { prev: 'hello' } });
  });

  it('chain: stops at the first failure and says which step', async () => {
    calls.length = 0;
    const out = await runComposite({ chain: [{ tool: 'a.one' }, { name: 'bad', tool: 'gh.fail' }, { tool: 'a.never' }] }, {}, run);
    expect(out).toMatchObject({ failed: true, output: { failed_step: 'bad', error: 'rate limited' } });
    expect(calls.map(([t]) => t)).toEqual(['a.one', 'gh.fail']);
  });

  it('chain: a template error fails its step', async () => {
    const out = await runComposite({ chain: [{ tool: 'a.one', args: { x: '{steps.nothing.result}' } }] }, {}, run);
    expect(out).toMatchObject({ failed: true, output: { error: expect.stringContaining('{steps.nothing.result} does not resolve') } });
  });
});
