import * as z from 'zod';
import { unknownServer } from '../../core/suggest.js';
import { defineTool, READ_ONLY } from '../../tool/define.js';
import { writtenSection } from '../shared/config-access.js';
import { escapeInvisible } from '../../proxy/pins/pins.js';
import { pinCell, pinStates, type PinState } from './pin-state.js';

function pairs(record: unknown): string[] {
  return Object.entries((record ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`);
}

type LoginStatus = import('../../auth/login-store.js').LoginStatus;

/** The login state of each server with auth: oauth (never a token). */
async function loginsOf(entries: Record<string, Record<string, unknown>>, env: NodeJS.ProcessEnv, now: number): Promise<Map<string, LoginStatus>> {
  const names = Object.keys(entries).filter((name) => entries[name]!.auth !== undefined);
  if (names.length === 0) return new Map();
  const [{ loginStore }, { loginStatus }] = await Promise.all([import('../../auth/upstream-oauth.js'), import('../../auth/login-store.js')]);
  const store = loginStore(env);
  return new Map(names.map((name) => [name, loginStatus(store.readAny(name), now)]));
}

/** One cell for a login: "no", "until 2026-11-23 14:05", "expired (refreshes)". */
function loginCell(status: LoginStatus | undefined): string {
  if (!status) return '';
  if (!status.logged_in) return status.step_up_scope ? `no (needs ${status.step_up_scope})` : 'no';
  if (!status.expires_at) return 'yes';
  const when = status.expires_at.slice(0, 16).replace('T', ' ');
  return status.expired ? (status.refreshable ? `expired ${when} (refreshes)` : `expired ${when}`) : `until ${when}`;
}

/** How a stdio server's entry boxes it, in a word or three. */
function boxOf(sandbox: unknown): string {
  if (sandbox === undefined || sandbox === false) return 'no';
  const spec = sandbox === true ? {} : (sandbox as { network?: boolean; read?: unknown[]; write?: unknown[] });
  return ['yes', spec.network ? 'network' : '', spec.write?.length ? 'writes' : ''].filter(Boolean).join(', ');
}

function summary(name: string, s: Record<string, unknown>, problems: readonly string[] | undefined, login?: LoginStatus, pins?: PinState) {
  const tools = s.tools && typeof s.tools === 'object' ? Object.keys(s.tools).length : 'all';
  return {
    name,
    type: s.url !== undefined ? 'remote' : 'stdio',
    target: s.url !== undefined ? String(s.url) : [s.command, ...((s.args as string[] | undefined) ?? [])].join(' '),
    enabled: s.disabled !== true,
    /** For a stdio server: in a box (bubblewrap), with the network or not, or not boxed. */
    ...(s.url === undefined ? { sandbox: boxOf(s.sandbox) } : {}),
    tools,
    filter_rules: Array.isArray(s.filter) ? s.filter.length : 0,
    // As written: ${VAR} references show which variables a server needs; literal secrets are masked.
    env: pairs(s.env),
    headers: pairs(s.headers),
    /** For a server with auth: oauth, whether mcpkit holds a login and until when. */
    ...(login ? { login } : {}),
    /** Tool pinning: tools approved, and how many of the last listing are withheld. */
    ...(pins ? { pins } : {}),
    /** Why the entry cannot be used (set aside; the other servers work), when it cannot. */
    problems: problems ?? [],
  };
}

export const serverList = defineTool({
  name: 'server_list',
  group: 'server',
  command: { id: 'server list', aliases: ['server ls'], examples: ['<%= config.bin %> server list', '<%= config.bin %> server list --json'] },
  title: 'List upstream MCP servers',
  description:
    'List the upstream servers in the config: type, command or URL, enabled, allow-listed tools, filter rules, env and headers as written (secrets masked), and for OAuth servers whether mcpkit is logged in and until when.',
  input: z.strictObject({}),
  annotations: READ_ONLY,
  async run(_input, ctx) {
    const { entries, problems, config } = await writtenSection(ctx, 'mcp_servers');
    const [logins, pins] = await Promise.all([loginsOf(entries, ctx.env, ctx.now().getTime()), pinStates(ctx, Object.keys(entries), config)]);
    return { servers: Object.entries(entries).map(([name, s]) => summary(name, s, problems(name), logins.get(name), pins.get(name))) };
  },
  render: (r, ui) =>
    r.servers.length === 0
      ? 'No servers configured. Add one with: mcpkit server add NAME --command CMD (or --url URL)'
      : [
          ui.table(
            r.servers.map(({ problems, env, headers, login, pins, ...s }) => ({
              ...s,
              ...(r.servers.some((x) => x.login) ? { login: loginCell(login) } : {}),
              ...(r.servers.some((x) => x.pins) ? { approved: pinCell(pins) } : {}),
              enabled: problems.length ? ui.color.red('unusable') : s.enabled ? 'yes' : 'no',
              // One column for what configures the server: env for a command, headers for a URL.
              [r.servers.some((x) => x.type === 'stdio') ? (r.servers.some((x) => x.type === 'remote') ? 'env/headers' : 'env') : 'headers']: [
                ...env,
                ...headers,
              ].join(', '),
            })),
          ),
          ...r.servers.flatMap((s) => s.problems.map((p) => ui.color.yellow(`! ${s.name}: ${p}`))),
          ...r.servers.flatMap((s) =>
            s.pins?.withheld || s.pins?.tampered ? [ui.color.yellow(`! ${s.name}: tools withheld until approved (review: mcpkit server diff ${s.name})`)] : [],
          ),
        ].join('\n'),
});

export const serverShow = defineTool({
  name: 'server_show',
  group: 'server',
  command: { id: 'server show', args: ['name'], aliases: ['server get'], examples: ['<%= config.bin %> server show github --json'] },
  title: 'Show an upstream MCP server',
  description: 'Show one server entry as written in the config (secrets masked).',
  input: z.strictObject({ name: z.string().min(1).describe('Name of the server.') }),
  annotations: READ_ONLY,
  async run(input, ctx) {
    const { entries, problems, config } = await writtenSection(ctx, 'mcp_servers');
    const entry = entries[input.name];
    if (!entry) throw unknownServer(input.name, Object.keys(entries));
    const [logins, pins] = await Promise.all([loginsOf({ [input.name]: entry }, ctx.env, ctx.now().getTime()), pinStates(ctx, [input.name], config)]);
    // Invisible characters (in a description override, say) are shown, as a model would read them.
    return {
      ...summary(input.name, entry, problems(input.name), logins.get(input.name), pins.get(input.name)),
      entry: showInvisible(entry) as typeof entry,
    };
  },
});

/** Every string of a value with its invisible characters escaped (proxy/pins/pins.ts). */
function showInvisible(value: unknown): unknown {
  if (typeof value === 'string') return escapeInvisible(value);
  if (Array.isArray(value)) return value.map(showInvisible);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [escapeInvisible(k), showInvisible(v)]));
  return value;
}
