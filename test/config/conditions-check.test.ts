import { describe, expect, it } from 'vitest';
import { checkConfigData } from '../../src/config/check/check.js';
import { checkValues, problemsOfEdit } from '../../src/config/check/value-check.js';

/** Conditions are compiled and type-checked with the schema: validate, every edit and every reload see the same problems. */
const problems = (raw: Record<string, unknown>) => checkConfigData(raw, {}).problems.map((p) => `${p.path}: ${p.message}`);

describe('conditions in the config', () => {
  it.each([
    ['a view', { tool_views: { docs: { conditions: { 'files__*': 'under(args.path, "/srv/docs")' } } } }],
    [
      'a client, with a message',
      {
        serve: {
          clients: {
            bot: {
              token: 't',
              conditions: { github__create_issue: { when: 'args.repo in ["acme/app"]', message: 'Only acme/app.' }, '*': 'size(json(args)) <= 100000' },
            },
          },
        },
      },
    ],
  ])('accepts %s', (_what, raw) => {
    expect(problems(raw)).toEqual([]);
  });

  it.each([
    [
      'a syntax error',
      { tool_views: { docs: { conditions: { 'files__*': 'under(args.path, ' } } } },
      'tool_views.docs.conditions.files__*: column 18: Unexpected token',
    ],
    ['a type error', { tool_views: { docs: { conditions: { '*': 'args.size + "x" == tool + 1' } } } }, 'tool_views.docs.conditions.*: column'],
    ['an unknown variable', { tool_views: { docs: { conditions: { '*': 'request.path == "x"' } } } }, 'request'],
    ['not a boolean', { tool_views: { docs: { conditions: { '*': 'json(args)' } } } }, 'not true or false'],
    [
      'a client with an unknown function',
      { serve: { clients: { bot: { token: 't', conditions: { '*': { when: 'startsWith(args.repo, "x")' } } } } } },
      'serve.clients.bot.conditions.*.when: column 1',
    ],
    ['a glob without its "}"', { tool_views: { docs: { conditions: { 'files__{a': 'true' } } } }, 'tool_views.docs.conditions.files__{a'],
    ['an unknown key beside when', { tool_views: { docs: { conditions: { '*': { when: 'true', mesage: 'x' } } } } }, 'mesage'],
  ])('refuses %s, naming where and what', (_what, raw, expected) => {
    const found = problems(raw);
    expect(found.join('\n')).toContain(expected);
    // An edit checks the same structure: it is refused, the file left as it was.
    expect(problemsOfEdit(checkValues(raw, {})).length).toBeGreaterThan(0);
  });
});
