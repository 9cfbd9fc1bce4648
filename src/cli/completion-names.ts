/**
 * Tab completion of the names a command takes (`server show <TAB>`, `call <TAB>`): oclif's
 * completion knows commands and flags only, so its generated functions get a wrapper that, at an
 * argument naming a server, view, tool, client or composite tool, offers the config's names
 * (`mcpkit complete-names KIND`, hidden). Pure: the table from the commands, and the shell text.
 */

export const NAME_KINDS = ['servers', 'views', 'tools', 'clients', 'composites', 'roots'] as const;
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

/** A flag whose value is a name of the config (`--view`), or one of a fixed list (`view install --client`). */
export interface NameFlag {
  words: string[];
  flag: string;
  kind?: NameKind;
  options?: string[];
}

/** Flags that take a name of the config, by the flag's name; `--as` names a client only where a login is kept for one. */
function flagKind(id: string, flag: string): NameKind | undefined {
  if (flag === 'view') return 'views';
  if (flag === 'who') return 'clients';
  if (flag === 'repo') return 'roots';
  if (flag === 'as' && id.startsWith('server:log')) return 'clients';
  return undefined;
}

/** Which flags of which commands take a name or one of a list, from the commands as oclif lists them. Pure. */
export function nameFlags(commands: readonly { id: string; flags: Readonly<Record<string, { options?: readonly string[] }>> }[]): NameFlag[] {
  const out: NameFlag[] = [];
  for (const { id, flags } of commands)
    for (const [flag, spec] of Object.entries(flags)) {
      const kind = flagKind(id, flag);
      // Only names a shell may offer as they are (compgen -W expands what it is given).
      const options = spec.options?.filter((o) => /^[A-Za-z0-9_.-]+$/.test(o));
      if (kind) out.push({ words: id.split(':'), flag, kind });
      else if (options?.length) out.push({ words: id.split(':'), flag, options });
    }
  return out;
}

/** The case arms for a flag's value: "view install|--client" -> its kind, or the words to offer. */
function flagArms(flags: readonly NameFlag[]): string {
  return flags.map((f) => `    "${f.words.join(' ')}|--${f.flag}") ${f.kind ? `kind=${f.kind}` : `words="${f.options!.join(' ')}"`} ;;`).join('\n');
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
export function bashNames(bin: string, table: readonly NameArgument[], flags: readonly NameFlag[] = []): string {
  return `
# mcpkit: the config's names at the arguments and flags that take one (around oclif's completion).
_${bin}_names_autocomplete()
{
  _${bin}_autocomplete "$@"
  # oclif offers a topic once for each of its commands ("server" 17 times): each word once.
  if ((\${#COMPREPLY[@]} > 1)); then
    local -A seen=(); local w; local -a once=()
    for w in "\${COMPREPLY[@]}"; do [[ -n "\${seen[$w]}" ]] || { seen[$w]=1; once+=("$w"); }; done
    COMPREPLY=("\${once[@]}")
  fi
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  [[ "$cur" == -* ]] && return 0
  local ws=() cfg="" i kind="" words=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ "\${COMP_WORDS[i]}" == --config ]]; then cfg="\${COMP_WORDS[i+1]}"; i=$((i + 1)); continue; fi
    [[ "\${COMP_WORDS[i]}" == -* ]] || ws+=("\${COMP_WORDS[i]}")
  done
  if [[ "$prev" == --* ]]; then
    case "\${ws[0]} \${ws[1]}|$prev" in
${flagArms(flags)}
    esac
    if [[ -z "$kind$words" ]]; then
      case "\${ws[0]}|$prev" in
${flagArms(flags)}
      esac
    fi
    if [[ -n "$words" ]]; then COMPREPLY=($(compgen -W "$words" -- "$cur")); return 0; fi
    if [[ -n "$kind" ]]; then COMPREPLY=($(compgen -W "$(${bin} complete-names "$kind" \${cfg:+--config "$cfg"} 2>/dev/null)" -- "$cur")); return 0; fi
  fi
  ((\${#COMPREPLY[@]} > 0)) && return 0
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
export function zshNames(bin: string, table: readonly NameArgument[], flags: readonly NameFlag[] = []): string {
  return `
# mcpkit: the config's names at the arguments and flags that take one (around oclif's completion).
_${bin}_names() {
  local -a ws; local i cfg="" kind="" choices="" prev="\${words[CURRENT-1]}"
  for ((i = 2; i < CURRENT; i++)); do
    if [[ "\${words[i]}" == --config ]]; then cfg="\${words[i+1]}"; i=$((i + 1)); continue; fi
    [[ "\${words[i]}" == -* ]] || ws+=("\${words[i]}")
  done
  if [[ "$prev" == --* && "\${words[CURRENT]}" != -* ]]; then
    case "\${ws[1]} \${ws[2]}|$prev" in
${flagArms(flags).replaceAll('words="', 'choices="')}
    esac
    if [[ -z "$kind$choices" ]]; then
      case "\${ws[1]}|$prev" in
${flagArms(flags).replaceAll('words="', 'choices="')}
      esac
    fi
    if [[ -n "$choices" ]]; then compadd -- \${=choices}; return; fi
    if [[ -n "$kind" ]]; then
      local -a names
      names=(\${(f)"$(${bin} complete-names "$kind" \${cfg:+--config "$cfg"} 2>/dev/null)"})
      compadd -- "\${names[@]}"
      return
    fi
  fi
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
