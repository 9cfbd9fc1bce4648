import { describe, expect, it } from 'vitest';
import { compileExpression, type ConditionVariables } from '../../src/conditions/engine.js';
import { ConditionSet, conditionFailed, firstRefusal } from '../../src/conditions/rules.js';

const vars = (args: Record<string, unknown>, more: Partial<ConditionVariables> = {}): ConditionVariables => ({
  args,
  tool: 'files__read_file',
  server: 'files',
  view: 'docs',
  client: 'research',
  claims: {},
  ...more,
});

function run(source: string, variables: ConditionVariables): unknown {
  const compiled = compileExpression(source);
  if (!compiled.ok) throw new Error(`does not compile: ${compiled.message}`);
  try {
    return compiled.evaluate(variables);
  } catch {
    return 'error';
  }
}

describe('compileExpression: what a condition sees', () => {
  it.each([
    ['under(args.path, "/srv/docs")', { path: '/srv/docs/a.md' }, true],
    ['under(args.path, "/srv/docs")', { path: '/srv/docs/../etc/passwd' }, false],
    ['under(args.path, ["/srv/a", "/srv/docs"])', { path: '/srv/docs/x' }, true],
    ['under(args.path, "/srv/docs")', {}, 'error'], // a missing argument: an error, which refuses
    ['under(args.path, "/srv/docs")', { path: 7 }, 'error'],
    ['args.repo in ["acme/app", "acme/docs"]', { repo: 'acme/app' }, true],
    ['args.repo in ["acme/app", "acme/docs"]', { repo: 'evil/app' }, false],
    ['size(json(args)) <= 20', { a: 'x'.repeat(10) }, true],
    ['size(json(args)) <= 20', { a: 'x'.repeat(30) }, false],
    ['glob(args.path, "/srv/**/*.md")', { path: '/srv/a/b.md' }, true],
    ['args.path.matches("^/srv/[a-z]+$")', { path: '/srv/docs' }, true],
    ['args.path.matches("^/srv/[a-z]+$")', { path: '/srv/Docs' }, false],
    ['args.path.matches("^(a+)+$")', { path: `${'a'.repeat(40)}!` }, false], // RE2: about 2^40 steps on V8's engine
    ['!has(args.force) || args.force == false', {}, true],
    ['!has(args.force) || args.force == false', { force: true }, false],
    ['tool == "files__read_file" && server == "files" && view == "docs" && client == "research"', {}, true],
    ['args.n < 10', { n: 3 }, true], // JSON numbers are doubles: compared with an int literal
  ])('%s with %j is %s', (source, args, expected) => {
    expect(run(source, vars(args))).toBe(expected);
  });

  it('sees claims', () => {
    expect(run('claims.azp == "ci-bot"', vars({}, { claims: { azp: 'ci-bot' } }))).toBe(true);
  });

  it.each([
    ['args.path ==', 'column 13', /Unexpected token/],
    ['tool + 1', 'column 1', /no such overload/],
    ['nope.path == "x"', 'column 1', /nope/],
    ['under(args.path)', 'column 1', /under/],
    ['size(args)', 'column 1', /not true or false/],
    ['"text"', 'column 1', /gives string, not true or false/],
  ])('refuses %j at its position', (source, column, message) => {
    const compiled = compileExpression(source);
    expect(compiled.ok).toBe(false);
    if (compiled.ok) return;
    expect(`column ${compiled.column}`).toBe(column);
    expect(compiled.message).toMatch(message);
  });
});

describe('ConditionSet', () => {
  const set = ConditionSet.compile('tool_views.docs.conditions', {
    'files__*': 'under(args.path, "/srv/docs")',
    'files__write_*': { when: 'false', message: 'Nothing is written here.' },
  })!;

  it.each([
    ['files__read_file', ['files__*']],
    ['files__write_file', ['files__*', 'files__write_*']],
    ['github__search', []],
  ])('the rules that apply to %s', (tool, keys) => {
    expect(set.applying(tool).map((r) => r.key)).toEqual(keys);
    expect(set.applying(tool)).toBe(set.applying(tool)); // remembered per name
  });

  it('lets a call through only when every rule is true, and names the first that is not', () => {
    expect(firstRefusal(set.applying('files__read_file'), vars({ path: '/srv/docs/a' }))).toBeUndefined();
    expect(firstRefusal(set.applying('files__read_file'), vars({ path: '/etc/passwd' }))).toMatchObject({ why: 'false', rule: { key: 'files__*' } });
    expect(firstRefusal(set.applying('files__read_file'), vars({}))).toMatchObject({ why: 'error' });
    expect(firstRefusal(set.applying('files__write_file'), vars({ path: '/srv/docs/a' }))).toMatchObject({ rule: { key: 'files__write_*' } });
  });

  it('a refusal names where the condition is written, its key and its message, never the arguments', () => {
    const secret = '/etc/shadow-SECRET-ARG';
    const refusal = firstRefusal(set.applying('files__write_file'), vars({ path: secret }))!;
    const error = conditionFailed('files__write_file', refusal);
    expect(error.code).toBe('CONDITION_FAILED');
    expect(error.message).toContain('"files__*" of tool_views.docs.conditions');
    const other = conditionFailed('files__write_file', firstRefusal(set.applying('files__write_file'), vars({ path: '/srv/docs/a' }))!);
    expect(other.message).toContain('Nothing is written here.');
    expect(JSON.stringify({ m: error.message, d: error.details, h: error.hint })).not.toContain('SECRET-ARG');
  });

  it('no conditions: no set', () => {
    expect(ConditionSet.compile('x', {})).toBeUndefined();
    expect(ConditionSet.compile('x', undefined)).toBeUndefined();
  });
});
