import { describe, expect, it } from 'vitest';
import { REQUIRE_BANNER, withoutUnusedRequire } from '../../scripts/require-banner.mjs';

describe('the require banner of built modules', () => {
  it.each([
    ['import{a}from"./x.js";export{a};', false],
    ['var require_lib=__commonJS(()=>{});__require("x");', false], // esbuild's own names, not require
    ['var x=require("node:path");', true],
    ['var t=typeof require<"u"?require:0;', true],
    ['module.require;', true], // a word anywhere keeps it: a file that might reach it does
    ['"require"', true],
  ])('in %j is kept: %s', (body, kept) => {
    const built = `${REQUIRE_BANNER}\n${body}`;
    expect(withoutUnusedRequire(built)).toBe(kept ? built : `\n${body}`);
  });

  it('leaves the line empty, so source map lines still hold', () => {
    expect(withoutUnusedRequire(`${REQUIRE_BANNER}\nline2\nline3`).split('\n')).toEqual(['', 'line2', 'line3']);
  });

  it('leaves a file without the banner as it is', () => {
    expect(withoutUnusedRequire('const a = 1;')).toBe('const a = 1;');
    expect(withoutUnusedRequire(`x${REQUIRE_BANNER}\n`)).toBe(`x${REQUIRE_BANNER}\n`);
  });
});
