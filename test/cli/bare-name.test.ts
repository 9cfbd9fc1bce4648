import { describe, expect, it } from 'vitest';
import { matchingBareName } from '../../src/cli/upstream-calls.js';

describe('matchingBareName: what "mcpkit call NAME" means by a bare upstream name', () => {
  it.each([
    // published names, name, separator, servers -> candidates
    ['one server has it', ['everything__echo', 'config_show'], 'echo', '__', ['everything'], ['everything__echo']],
    ['two servers have it', ['a__echo', 'b__echo'], 'echo', '__', ['a', 'b'], ['a__echo', 'b__echo']],
    ['none has it', ['a__echo'], 'add', '__', ['a'], []],
    ['a tool whose own name has the separator is not a match for its tail', ['a__b__echo'], 'echo', '__', ['a'], []],
    ['the full name of a server named with the separator', ['a__b__echo'], 'b__echo', '__', ['a'], ['a__b__echo']],
    ["a view's own separator", ['gh.echo', 'gh__echo'], 'echo', '.', ['gh'], ['gh.echo']],
    ['a server the view does not have', ['other__echo'], 'echo', '__', ['a'], []],
  ])('%s', (_label, published, name, separator, servers, expected) => {
    expect(matchingBareName(published, name, separator, servers)).toEqual(expected);
  });
});
