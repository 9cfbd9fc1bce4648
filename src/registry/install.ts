import { ToolError } from '../core/errors.js';
import { literalText } from '../config/secrets/interpolate.js';

/**
 * A registry entry (server.json) turned into an upstream server for the config: npm packages run
 * with `npx -y pkg@version`, PyPI with `uvx pkg==version`, NuGet with `dnx pkg@version --yes` (the
 * .NET 10 tool runner), OCI images with `docker run -i --rm`, remotes by URL. Declared environment
 * variables, remote headers and the `{name}` variables of a remote's URL become `${VAR}`
 * references, so secrets stay out of the file and `serve` fills them in. Everything else the entry
 * says is data: a `${VAR}` in its values, arguments or URL is written so that it is never filled in
 * (config/secrets/interpolate.ts literalText). An entry reads only the variables it declares. Pure.
 */
export type PackageKind = 'npm' | 'pypi' | 'nuget' | 'oci' | 'remote' | 'mcpb';
export const PACKAGE_KINDS: readonly PackageKind[] = ['npm', 'pypi', 'nuget', 'oci', 'remote', 'mcpb'];
/** Which kind is taken when the entry offers several and none is asked for (a bundle is code to download and unpack: last). */
const PREFERRED: readonly PackageKind[] = ['npm', 'pypi', 'nuget', 'oci', 'remote', 'mcpb'];

interface Input {
  name: string;
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  default?: string;
  value?: string;
}

/** What a client shows after installing a package, and never runs (server.json draft). */
export type PostInstall = string | { description?: string; command?: string; documentation?: string; documentationUrl?: string };

interface Package {
  registryType?: string;
  identifier?: string;
  version?: string;
  postInstallInstructions?: PostInstall;
  /** An mcpb bundle's digest (required for that kind). */
  fileSha256?: string;
  transport?: { type?: string; url?: string };
  environmentVariables?: Input[];
  runtimeArguments?: Argument[];
  packageArguments?: Argument[];
}

interface Argument {
  type?: 'positional' | 'named';
  name?: string;
  value?: string;
  isRequired?: boolean;
  valueHint?: string;
}

interface Remote {
  type?: string;
  url?: string;
  headers?: Input[];
  /** The `{name}` variables of `url` (server.json 2025-12-11). */
  variables?: Record<string, { description?: string; isRequired?: boolean; default?: string; choices?: string[] }>;
}

export interface ServerJson {
  name: string;
  description?: string;
  version?: string;
  packages?: Package[];
  remotes?: Remote[];
}

export interface DeclaredVariable {
  name: string;
  required: boolean;
  secret: boolean;
  description?: string;
  /** An HTTP header of a remote, filled from this variable. */
  header?: string;
  /** A `{name}` of a remote's URL, filled from this variable. */
  urlVariable?: string;
}

export interface Installation {
  kind: PackageKind;
  entry: Record<string, unknown>;
  variables: DeclaredVariable[];
  /** What could not be filled in automatically (required arguments without a value). */
  notes: string[];
  /** What the package says to do after installing it: shown, never run. */
  postInstall?: string[];
  /** An mcpb bundle to fetch, check and unpack (./mcpb.ts) before the entry can be made (./mcpb-manifest.ts). */
  bundle?: { url: string; sha256?: string };
}

/** The local name: the last part of the registry name, made config-safe. */
export function localName(registryName: string): string {
  const last = registryName.split('/').pop() ?? registryName;
  const cleaned = last.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return cleaned || 'server';
}

/** What no entry may name as a variable it reads: mcpkit's own (MCPKIT_TOKEN, ...), never given to a server. */
const OWN_VARIABLE = /^MCPKIT_/;

/**
 * A variable an entry declares, checked: a name in environment-variable spelling (anything else
 * could close the placeholder and open another), and never one of mcpkit's own.
 */
export function declaredName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new ToolError('INVALID_INPUT', `The registry entry declares the variable "${name}", which is not a variable name: it was not added.`, {
      hint: 'A variable name is letters, digits and "_", not starting with a digit. Add the server by hand with mcpkit server add.',
    });
  }
  if (OWN_VARIABLE.test(name)) {
    throw new ToolError('INVALID_INPUT', `The registry entry declares the variable ${name}, one of mcpkit's own, which no server is given: it was not added.`, {
      hint: 'Add the server by hand with mcpkit server add, giving it what it needs in env.',
    });
  }
  return name;
}

/** Whether a declared default can stand in `${VAR:-default}` as it is: plain text, no "$", "{" or "}". Pure. */
export function plainDefault(text: string): boolean {
  return !/[${}]/.test(text);
}

/** An environment variable name for a header, a URL variable or a bundle's user_config key: `X-Api-Key` -> `X_API_KEY`. */
export function variableForHeader(header: string): string {
  return (
    header
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'HEADER'
  );
}

function kindOf(pkg: Package): PackageKind | undefined {
  const type = pkg.registryType;
  return type === 'npm' || type === 'pypi' || type === 'nuget' || type === 'oci' || type === 'mcpb' ? type : undefined;
}

/** The package kinds an entry offers that mcpkit does not run (mcpb bundles), for the error that says so. */
export function unsupportedKinds(server: ServerJson): string[] {
  return [...new Set((server.packages ?? []).map((p) => p.registryType ?? '?').filter((t) => !kindOf({ registryType: t })))];
}

/** A remote URL's `{name}` variables as `${VAR}` references (tenant_id -> TENANT_ID), or the values given. Pure. */
export function templatedUrl(
  url: string,
  declared: Remote['variables'],
  given: Readonly<Record<string, string>>,
): { url: string; variables: DeclaredVariable[] } {
  const variables: DeclaredVariable[] = [];
  // The URL's own text and the values given are data; only its declared {name}s become references.
  const out = literalText(url).replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => {
    if (given[name] !== undefined) return literalText(given[name]!);
    const spec = declared?.[name] ?? {};
    const variable = declaredName(variableForHeader(name));
    if (!variables.some((v) => v.name === variable))
      variables.push({
        name: variable,
        required: spec.default === undefined,
        secret: false,
        urlVariable: name,
        ...(spec.description ? { description: spec.description } : {}),
      });
    // An empty part would break the URL: without a default, the variable must be set.
    return spec.default !== undefined && plainDefault(spec.default) ? `\${${variable}:-${spec.default}}` : `\${${variable}}`;
  });
  return { url: out, variables };
}

/** Post-install instructions as lines to show. */
function postInstallLines(instructions: PostInstall | undefined): string[] | undefined {
  if (instructions === undefined) return undefined;
  if (typeof instructions === 'string') return [instructions];
  const link = instructions.documentationUrl ?? instructions.documentation;
  const lines = [instructions.description, instructions.command ? `Command (not run): ${instructions.command}` : undefined, link ? `See ${link}` : undefined];
  return lines.filter((l): l is string => typeof l === 'string' && l.length > 0);
}

export function availableKinds(server: ServerJson): PackageKind[] {
  const kinds = (server.packages ?? []).map(kindOf).filter((k): k is PackageKind => k !== undefined);
  if ((server.remotes ?? []).some((r) => r.url)) kinds.push('remote');
  return [...new Set(kinds)];
}

function variables(inputs: readonly Input[] | undefined): DeclaredVariable[] {
  return (inputs ?? []).map((v) => ({
    name: v.name,
    required: v.isRequired === true,
    secret: v.isSecret === true,
    ...(v.description ? { description: v.description } : {}),
  }));
}

/**
 * `${NAME}` for a required variable (so "config validate" reports it until it is set),
 * `${NAME:-default}` for a declared default that is not a secret, and `${NAME:-}` (empty when
 * unset) for an optional one, so an unset optional variable does not make the config invalid.
 */
export function reference(input: Pick<Input, 'name' | 'isRequired' | 'isSecret' | 'default'>): string {
  const name = declaredName(input.name);
  if (input.default !== undefined && input.isSecret !== true && plainDefault(input.default)) return `\${${name}:-${input.default}}`;
  return input.isRequired ? `\${${name}}` : `\${${name}:-}`;
}

function argumentValues(args: readonly Argument[] | undefined, notes: string[], where: string): string[] {
  const out: string[] = [];
  for (const arg of args ?? []) {
    if (arg.value === undefined) {
      if (arg.isRequired) notes.push(`Required ${where} argument ${arg.name ?? arg.valueHint ?? '(unnamed)'} has no value: add it to args in the config.`);
      continue;
    }
    if (arg.type === 'named' && arg.name) out.push(literalText(arg.name), literalText(arg.value));
    else out.push(literalText(arg.value));
  }
  return out;
}

export function installation(server: ServerJson, wanted?: PackageKind, urlValues: Readonly<Record<string, string>> = {}): Installation {
  const kinds = availableKinds(server);
  const kind = wanted ?? PREFERRED.find((k) => kinds.includes(k));
  if (!kind || !kinds.includes(kind)) {
    const others = unsupportedKinds(server);
    throw new ToolError('INVALID_INPUT', wanted ? `${server.name} has no ${wanted} package.` : `${server.name} has no package or remote mcpkit can run.`, {
      details: { server: server.name, available: kinds, ...(others.length ? { not_supported: others } : {}) },
      hint: kinds.length
        ? `Choose one of: ${kinds.map((k) => `--package ${k}`).join(', ')}.`
        : `${others.length ? `It offers ${others.join(', ')}, which mcpkit does not run yet. ` : ''}Add it by hand with: mcpkit server add NAME --command ... or --url ...`,
    });
  }
  const notes: string[] = [];
  const description = server.description === undefined ? undefined : literalText(server.description);
  if (kind === 'remote') {
    const remote = (server.remotes ?? []).find((r) => r.url)!;
    const headers = Object.fromEntries(
      (remote.headers ?? []).map((h) => [h.name, h.value !== undefined ? literalText(h.value) : reference({ ...h, name: variableForHeader(h.name) })]),
    );
    const headerVariables: DeclaredVariable[] = (remote.headers ?? [])
      .filter((h) => h.value === undefined)
      .map((h) => ({ ...variables([h])[0]!, name: variableForHeader(h.name), header: h.name }));
    const transport = remote.type === 'sse' ? 'sse' : remote.type === 'streamable-http' ? 'http' : undefined;
    const templated = templatedUrl(remote.url!, remote.variables, urlValues);
    headerVariables.push(...templated.variables);
    const entry = {
      ...(description ? { description } : {}),
      url: templated.url,
      ...(transport ? { transport } : {}),
      ...(Object.keys(headers).length ? { headers } : {}),
    };
    return { kind, entry, variables: headerVariables, notes };
  }
  const pkg = (server.packages ?? []).find((p) => kindOf(p) === kind)!;
  const postInstall = postInstallLines(pkg.postInstallInstructions);
  if (kind === 'mcpb') {
    return {
      kind,
      entry: {},
      variables: [],
      notes,
      bundle: { url: pkg.identifier ?? '', ...(pkg.fileSha256 ? { sha256: pkg.fileSha256 } : {}) },
      ...(postInstall?.length ? { postInstall } : {}),
    };
  }
  if (pkg.transport?.type && pkg.transport.type !== 'stdio') {
    notes.push(`The package serves over ${pkg.transport.type}${pkg.transport.url ? ` at ${pkg.transport.url}` : ''}; mcpkit starts it as a stdio server.`);
  }
  const id = literalText(pkg.identifier ?? server.name);
  const version = pkg.version === undefined && server.version === undefined ? undefined : literalText((pkg.version ?? server.version)!);
  const runtime = argumentValues(pkg.runtimeArguments, notes, 'runtime');
  const packageArgs = argumentValues(pkg.packageArguments, notes, 'package');
  const envInputs = pkg.environmentVariables ?? [];
  const env = Object.fromEntries(envInputs.map((v) => [declaredName(v.name), v.value !== undefined ? literalText(v.value) : reference(v)]));
  let command: string;
  let args: string[];
  if (kind === 'npm') {
    command = 'npx';
    args = ['-y', ...runtime, version ? `${id}@${version}` : id, ...packageArgs];
  } else if (kind === 'pypi') {
    command = 'uvx';
    args = [...runtime, version ? `${id}==${version}` : id, ...packageArgs];
  } else if (kind === 'nuget') {
    // dnx (.NET 10: `dnx <packageId>[@version] [args]`) runs a tool package; --yes accepts the
    // download without a prompt, and the tool's own arguments follow -- (never read as dnx's).
    command = 'dnx';
    args = ['--yes', ...runtime, version ? `${id}@${version}` : id, ...(packageArgs.length ? ['--', ...packageArgs] : [])];
  } else {
    command = 'docker';
    // docker passes a variable named with -e (and no value) through from its own environment.
    const image = /:[^/]+$/.test(id) || id.includes('@') || !version ? id : `${id}:${version}`;
    args = ['run', '-i', '--rm', ...envInputs.flatMap((v) => ['-e', v.name]), ...runtime, image, ...packageArgs];
  }
  const entry = { ...(description ? { description } : {}), command, args, ...(envInputs.length ? { env } : {}) };
  return { kind, entry, variables: variables(envInputs), notes, ...(postInstall?.length ? { postInstall } : {}) };
}
