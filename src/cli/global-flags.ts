/**
 * The flags every command takes (`--config FILE`, `--json`, `--jq EXPR`), written before the command
 * (`mcpkit --config F view create x`), as gh, git and kubectl users write them. oclif reads a
 * command's flags only after its id, so they are moved there: just before a `--` that ends the
 * flags, else to the end. Pure; bin/run.js calls it only when the line starts with one of them.
 */
const GLOBAL = /^--(?:config(?:=.*)?|jq(?:=.*)?|json)$/s;

export function hoistGlobalFlags(argv: readonly string[]): string[] {
  const globals: string[] = [];
  let at = 0;
  while (at < argv.length && GLOBAL.test(argv[at]!)) {
    const flag = argv[at]!;
    globals.push(flag);
    // `--config FILE`: its value goes with it.
    if ((flag === '--config' || flag === '--jq') && at + 1 < argv.length) globals.push(argv[++at]!);
    at += 1;
  }
  if (!globals.length) return [...argv];
  const rest = argv.slice(at);
  const end = rest.indexOf('--');
  return end < 0 ? [...rest, ...globals] : [...rest.slice(0, end), ...globals, ...rest.slice(end)];
}
