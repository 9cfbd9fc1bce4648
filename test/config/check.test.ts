import { describe, expect, it } from 'vitest';
import { checkConfigText, problemUnit } from '../../src/config/check/check.js';
import { asWritten, withOtherDefaults } from '../../src/tools/config/show.js';
import { STARTER_CONFIG } from '../../src/config/starter.js';
import { EXPOSURES, withDefaults } from '../../src/config/schema/defaults.js';

const problemsOf = (text: string, env: Record<string, string> = {}) => checkConfigText(text, env).problems;

describe('checkConfigText', () => {
  it('accepts an empty file and the starter file, filling in defaults', () => {
    expect(checkConfigText('', {}).config).toMatchObject({ mcp_servers: {}, tool_views: {}, serve: {} });
    expect(problemsOf(STARTER_CONFIG)).toEqual([]);
  });

  it('expands variables before validating', () => {
    const checked = checkConfigText('mcp_servers:\n  gh:\n    url: ${GH_URL:-https://example.com/mcp}\n', {});
    expect(checked.config?.mcp_servers.gh?.url).toBe('https://example.com/mcp');
  });

  it.each([
    ['bad YAML', 'mcp_servers: [unclosed', /^line 1, column/, /./],
    ['a YAML message ends in its words, not a dangling colon', 'a: [b\n', /^line 2, column 1$/, /indented and end with a \]$/],
    ['duplicate keys', 'serve: {}\nserve: {}\n', /^line 2/, /unique/i],
    ['duplicate keys deeper down', 'mcp_servers:\n  a: { command: x }\n  b: { command: y }\n  a: { command: z }\n', /^line 4, column 3$/, /"a" appears twice/],
    [
      'an alias bomb',
      `a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n`,
      /^\(yaml\)$/,
      /alias/i,
    ],
    ['a list at the top', '- a\n- b\n', /\(root\)/, /mapping/],
    ['an unknown section', 'servers: {}\n', /\(root\)/, /servers/],
    ['a server with neither command nor url', 'mcp_servers:\n  x: { args: [a] }\n', /^mcp_servers\.x$/, /command .* or url/],
    ['a server with both', 'mcp_servers:\n  x: { command: a, url: "https://x" }\n', /^mcp_servers\.x$/, /not both/],
    ['a mistyped server key', 'mcp_servers:\n  x: { command: a, comand: b }\n', /^mcp_servers\.x$/, /"comand" \(did you mean "command"\?\)/],
    [
      'a mistyped key of a tool entry',
      'mcp_servers:\n  x: { command: a, tools: { t: { descripton: d } } }\n',
      /^mcp_servers\.x\.tools\.t$/,
      /did you mean "description"/,
    ],
    ['a mistyped view key', 'tool_views:\n  v: { exposre: direct }\n', /^tool_views\.v$/, /did you mean "exposure"/],
    ['two mistyped keys', 'serve: { tokn: a, por: 1 }\n', /^serve$/, /did you mean "token" for "tokn", "port" for "por"/],
    ['a key like none', 'serve: { zzzzzz: 1 }\n', /^serve$/, /^Unrecognized key: "zzzzzz"$/],
    ['a wrong type', 'mcp_servers:\n  x: { command: a, timeout_ms: soon }\n', /^mcp_servers\.x\.timeout_ms$/, /number/],
    ['a bad url', 'mcp_servers:\n  x: { url: "ftp://x" }\n', /^mcp_servers\.x\.url$/, /http/],
    ['a bad filter rule', 'mcp_servers:\n  x: { command: a, filter: [{ allow: "x*" }] }\n', /^mcp_servers\.x\.filter\.0$/, /./],
    ['a bad exposure', 'tool_views:\n  v: { exposure: everything }\n', /^tool_views\.v\.exposure$/, /direct|search/],
    ['a bad server name', 'mcp_servers:\n  "bad name": { command: a }\n', /^mcp_servers\.bad name$/, /names use/],
    ['a mistyped serve key', 'serve: { tokn: abc }\n', /^serve$/, /tokn/],
    ['a mistyped retrieve key', 'retrieve: { root: { docs: . } }\n', /^retrieve$/, /"root" \(did you mean "roots"\?\)/],
    ['a mistyped key nested in serve.auth', 'serve:\n  auth: { issuer: "https://as.example", scope: [a] }\n', /^serve\.auth$/, /scope/],
    ['a mistyped key in a view', 'tool_views:\n  v: { servers: [], exposur: direct }\n', /^tool_views\.v$/, /exposur/],
    ['a mistyped key in arango', 'arango: { urll: "http://x" }\n', /^arango$/, /urll/],
    ['an unset variable', 'mcp_servers:\n  x: { command: a, env: { T: "${NOT_SET_ANYWHERE}" } }\n', /^mcp_servers\.x\.env\.T$/, /NOT_SET_ANYWHERE is not set/],
  ])('reports %s with its path', (_name, text, path, message) => {
    const problems = problemsOf(text);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.some((p) => path.test(p.path) && message.test(p.message))).toBe(true);
  });

  it('lists every problem, not only the first', () => {
    const problems = problemsOf('mcp_servers:\n  a: { args: [] }\n  b: { command: x, timeout_ms: -1 }\ntool_views:\n  v: { exposure: nope }\n');
    expect(problems.map((p) => p.path).sort()).toEqual(['mcp_servers.a', 'mcp_servers.b.timeout_ms', 'tool_views.v.exposure']);
  });
});

describe('one unset variable harms only its own part of the config', () => {
  it.each([
    ['registry.sources.mine.api_key', 'registry.sources.mine'],
    ['registry.timeout_ms', 'registry'],
    ['mcp_servers.gh.headers.Authorization', 'mcp_servers.gh'],
    // What only serve --http reads is a unit of its own: stdio serve goes on without it.
    ['serve.token', 'serve.http'],
    ['serve.clients.alice.token', 'serve.http'],
    ['serve.auth.issuer', 'serve.http'],
    ['serve.audit_log', 'serve'],
    ['serve.groups', 'serve'],
    ['hooks.pre_call', undefined],
  ])('%s belongs to %s', (path, unit) => expect(problemUnit(path)).toBe(unit));

  it("an agent's unset token leaves out serve's HTTP settings with problems, and keeps the rest of serve", () => {
    const text = 'serve:\n  groups: [retrieve]\n  audit_log: a.jsonl\n  port: 8100\n  clients:\n    alice: { token: "${MCPKIT_TEST_UNSET_ALICE}" }\n';
    const checked = checkConfigText(text, {});
    expect(checked.config?.unusable).toEqual({
      'serve.http': [
        'serve.clients.alice.token: environment variable MCPKIT_TEST_UNSET_ALICE is not set (set it, or write ${MCPKIT_TEST_UNSET_ALICE:-default})',
      ],
    });
    expect(checked.config?.serve).toMatchObject({ groups: ['retrieve'], audit_log: 'a.jsonl', port: 8100 });
    expect(checked.config?.serve.clients).toBeUndefined();
    expect(checked.config?.references?.units).toEqual({ 'serve.http': ['MCPKIT_TEST_UNSET_ALICE'] });
  });

  it("a registry source's unset key sets that source aside (its name kept, nothing of it used); the other sources and the section stay", () => {
    const checked = checkConfigText(
      'registry:\n  timeout_ms: 5000\n  sources:\n    mine: { url: "https://r.example", api_key: "${UNSET_KEY_Q}" }\n    theirs: { url: "https://t.example" }\n',
      {},
    );
    expect(checked.config?.unusable).toEqual({ 'registry.sources.mine': [expect.stringContaining('UNSET_KEY_Q is not set')] });
    expect(checked.config?.registry.timeout_ms).toBe(5000);
    // The name stays, so that registry.default may still name it; nothing of the entry is kept, and its stand-in reaches nothing.
    expect(checked.config?.registry.sources).toEqual({ mine: { url: 'https://set-aside.invalid' }, theirs: { url: 'https://t.example' } });
  });
});

describe('asWritten: set-aside parts of a resolved config, as the file wrote them', () => {
  it.each([
    ['a registry source', ['registry.sources.mine'], { registry: { sources: { mine: { api_key: '${K}' }, theirs: { url: 'u' } }, timeout_ms: 1 } }],
    ['a server', ['mcp_servers.gh'], { registry: { sources: { theirs: { url: 'u' } }, timeout_ms: 1 }, mcp_servers: { gh: { url: '${U}' } } }],
  ])('%s', (_label, units, expected) => {
    const resolved = { registry: { sources: { theirs: { url: 'u' } }, timeout_ms: 1 }, mcp_servers: { gh: { command: 'false' } } };
    const raw = { registry: { sources: { mine: { api_key: '${K}' } } }, mcp_servers: { gh: { url: '${U}' } } };
    const out = asWritten(resolved, raw, units);
    expect(out).toMatchObject(expected);
    expect(resolved.mcp_servers.gh).toEqual({ command: 'false' }); // not changed in place
  });
});

describe('config show --resolved fills in the defaults outside the sections', () => {
  it.each([
    [{}, { pinning: 'enforce', daemon: { auto: false, idle_minutes: 30 }, serve: { metrics: true, metrics_public: false } }],
    [
      { pinning: 'warn', daemon: { idle_minutes: 5 }, serve: { metrics: false, port: 1 } },
      { pinning: 'warn', daemon: { auto: false, idle_minutes: 5 }, serve: { metrics: false, metrics_public: false, port: 1 } },
    ],
  ])('%j', (config, expected) =>
    // As config show --resolved fills them: the sections' defaults, then the others.
    expect(withOtherDefaults(withDefaults(config, { registryDefault: 'official', backupDir: '/b' }))).toMatchObject(expected),
  );

  it("the starter file's comment names every exposure", () => {
    const line = STARTER_CONFIG.split('\n').find((l) => l.includes('exposure:')) ?? '';
    for (const exposure of EXPOSURES) expect(line).toMatch(new RegExp(`\\b${exposure}\\b`));
    expect(line).toContain('auto (default) | direct | search | code');
  });
});
