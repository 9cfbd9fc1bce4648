import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir`, at any depth, whose name `wanted` accepts (the shape checks read all of src/ this way). */
export function sourceFiles(dir: string, wanted: (name: string) => boolean = isTypeScriptSource, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, wanted, out);
    else if (wanted(name)) out.push(path);
  }
  return out;
}

/** A TypeScript module of our own (not a declaration file). */
export const isTypeScriptSource = (name: string): boolean => name.endsWith('.ts') && !name.endsWith('.d.ts');
