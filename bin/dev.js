#!/usr/bin/env -S node --import tsx --no-warnings
// Runs the TypeScript sources directly (no build): oclif maps ./dist/commands to ./src/commands via tsconfig.json.
import { execute } from '@oclif/core';

await execute({ development: true, dir: import.meta.url });
