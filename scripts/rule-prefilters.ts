// Writes src/proxy/pins/rule-prefilters.json: each scan rule pattern's, mask's and parameter-name
// list's prefilter (core/regexp/required-literals.ts requiredLiterals), by `String(pattern)`. Computing
// them all at run time cost ~40 ms of every serve's first listing; read from this file it is a
// look-up. test/proxy/pins/rule-prefilters.test.ts fails whenever the file and the rules differ.
// Usage: node --import tsx scripts/rule-prefilters.ts
import { writeFileSync } from 'node:fs';
import { rulePrefilters } from '../src/proxy/pins/rule-patterns.js';
import { SCAN_RULES } from '../src/proxy/pins/scan-rules.js';

writeFileSync(new URL('../src/proxy/pins/rule-prefilters.json', import.meta.url), `${JSON.stringify(rulePrefilters(SCAN_RULES), null, 2)}\n`);
