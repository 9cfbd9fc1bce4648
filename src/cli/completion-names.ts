/**
 * Tab completion of the names a command takes (`server show <TAB>`, `call <TAB>`): oclif's
 * completion knows commands and flags only, so its generated functions get a wrapper that, at an
 * argument naming a server, view, tool, client or composite tool, offers the config's names
 * (`mcpkit complete-names KIND`, hidden). Pure: the table from the commands, and the shell text.
 */

export const NAME_KINDS = ['servers', 'views', 'tools', 'clients', 'composites'] as const;
export type NameKind = (typeof NAME_KINDS)[number];

/** A command's argument that takes a name of the config: the command's words, the argument's place (1 = first), its kind. */
export interface NameArgument {
  words: string[];
  position: number;
  kind: NameKind;
}

/** Commands that make a new name: nothing of the config to offer. */
const MAKES_A_NAME = new Set(['server:add', 'server:import', 'view:create', 'clients:add', 'composite:add']);

/** Which arguments of which commands take a name of the config, from the commands as oclif lists them. Pure. */
export function nameArguments(commands: readonly { id: string; args: readonly string[] }[]): NameArgument[] {
  const out: NameArgument[] = [];
  for (const { id, args } of commands) {
    if (MAKES_A_NAME.has(id)) continue;
    const words = id.split(':');
    const topic = words.length > 1 ? words[0] : undefined;
    args.forEach((arg, i) => {
      const kind = kindOf(topic, id, arg, i);
      if (kind) out.push({ words, position: i + 1, kind });
    });
  }
  return out;
}

function kindOf(topic: string | undefined, id: string, arg: string, index: number): NameKind | undefined {
  if (arg === 'server') return 'servers';
  if (id === 'call' || id === 'tools') return index === 0 ? 'tools' : undefined;
  if (index !== 0) return undefined;
  if (topic === 'server' && arg === 'name') return 'servers';
  if (topic === 'view' && (arg === 'name' || arg === 'view')) return 'views';
  if (topic === 'clients' && arg === 'name') return 'clients';
  if (topic === 'composite' && arg === 'name') return 'composites';
  return undefined;
}

/** The case arms: "server show@1" (the first argument after the command's words) -> its kind, one and two-word commands apart. */
function arms(table: readonly NameArgument[], length: number): string {
  return table
    .filter((a) => a.words.length === length)
    .map((a) => `    "${a.words.join(' ')}@${a.position}") kind=${a.kind} ;;`)
    .join('\n');
}

/**
 * What bash sources after oclif's function: at a name argument, where oclif offers nothing, the
 * config's names (of the file --config names, when the line gives one). `bin` is the command name.
 */
export function bashNames(bin: string, table: readonly NameArgument[]): string {
  return `
# mcpkit: the config's names at the arguments that take one (around oclif's completion).
_${bin}_names_autocomplete()
{
  _${bin}_autocomplete "$@"
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  [[ "$cur" == -* || \${#COMPREPLY[@]} -gt 0 ]] && return 0
  local ws=() cfg="" i kind=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ "\${COMP_WORDS[i]}" == --config ]]; then cfg="\${COMP_WORDS[i+1]}"; i=$((i + 1)); continue; fi
    [[ "\${COMP_WORDS[i]}" == -* ]] || ws+=("\${COMP_WORDS[i]}")
  done
  case "\${ws[0]} \${ws[1]}@$((\${#ws[@]} - 1))" in
${arms(table, 2)}
  esac
  if [[ -z "$kind" ]]; then
    case "\${ws[0]}@\${#ws[@]}" in
${arms(table, 1)}
    esac
  fi
  [[ -n "$kind" ]] || return 0
  COMPREPLY=($(compgen -W "$(${bin} complete-names "$kind" \${cfg:+--config "$cfg"} 2>/dev/null)" -- "$cur"))
}
complete -F _${bin}_names_autocomplete ${bin}
`;
}

/** What zsh sources after compinit (oclif's zsh_setup): the same, around oclif's _BIN function. */
export function zshNames(bin: string, table: readonly NameArgument[]): string {
  return `
# mcpkit: the config's names at the arguments that take one (around oclif's completion).
_${bin}_names() {
  local -a ws; local i cfg="" kind=""
  for ((i = 2; i < CURRENT; i++)); do
    if [[ "\${words[i]}" == --config ]]; then cfg="\${words[i+1]}"; i=$((i + 1)); continue; fi
    [[ "\${words[i]}" == -* ]] || ws+=("\${words[i]}")
  done
  case "\${ws[1]} \${ws[2]}@$((\${#ws} - 1))" in
${arms(table, 2)}
  esac
  if [[ -z "$kind" ]]; then
    case "\${ws[1]}@\${#ws}" in
${arms(table, 1)}
    esac
  fi
  if [[ -n "$kind" && "\${words[CURRENT]}" != -* ]]; then
    local -a names
    names=(\${(f)"$(${bin} complete-names "$kind" \${cfg:+--config "$cfg"} 2>/dev/null)"})
    compadd -- "\${names[@]}"
    return
  fi
  _${bin} "$@"
}
compdef _${bin}_names ${bin}
`;
}
