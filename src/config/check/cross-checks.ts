import type { ConfigProblem } from './problems.js';

/** What the config's names may refer to besides itself: mcpkit's tool groups and tool names. */
export interface KnownNames {
  groups: readonly string[];
  tools: readonly string[];
}

interface Step {
  tool: string;
}

interface Checked {
  mcp_servers: Readonly<Record<string, unknown>>;
  serve: { groups?: readonly string[] | undefined };
  tool_views: Readonly<Record<string, { groups?: readonly string[] | undefined; tools?: readonly string[] | undefined }>>;
  composite_tools: Readonly<Record<string, { parallel?: Readonly<Record<string, Step>> | undefined; chain?: readonly Step[] | undefined }>>;
}

/**
 * Names a valid config gives that name nothing: a group or mcpkit tool no one has (serve, and
 * serve --view, refuse those), and a composite step whose server is not configured. What the schema
 * cannot see, found before serve is started on it. Pure.
 */
export function crossCheckProblems(config: Checked, known: KnownNames): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const groupsKnown = `known: ${known.groups.join(', ')}`;
  const unknownGroups = (path: string, groups: readonly string[] | undefined) => {
    for (const group of groups ?? [])
      if (!known.groups.includes(group)) problems.push({ path, message: `no mcpkit tool group is named "${group}" (${groupsKnown})` });
  };
  unknownGroups('serve.groups', config.serve.groups);
  for (const [name, view] of Object.entries(config.tool_views)) {
    unknownGroups(`tool_views.${name}.groups`, view.groups);
    for (const tool of view.tools ?? []) {
      if (!known.tools.includes(tool) && !Object.hasOwn(config.composite_tools, tool))
        problems.push({ path: `tool_views.${name}.tools`, message: `no mcpkit tool or composite tool is named "${tool}" ("mcpkit tools --local" lists them)` });
    }
  }
  for (const [name, composite] of Object.entries(config.composite_tools)) {
    const steps: [string, Step][] = [
      ...Object.entries(composite.parallel ?? {}).map(([step, s]) => [`composite_tools.${name}.parallel.${step}.tool`, s] as [string, Step]),
      ...(composite.chain ?? []).map((s, i) => [`composite_tools.${name}.chain.${i}.tool`, s] as [string, Step]),
    ];
    for (const [path, step] of steps) {
      const dot = step.tool.indexOf('.');
      if (dot > 0 ? Object.hasOwn(config.mcp_servers, step.tool.slice(0, dot)) : known.tools.includes(step.tool)) continue;
      problems.push({
        path,
        message:
          dot > 0
            ? `"${step.tool}" names the server "${step.tool.slice(0, dot)}", which is not in mcp_servers`
            : `"${step.tool}" is no mcpkit tool; an upstream tool is written server.tool`,
      });
    }
  }
  return problems;
}
