// Shell completion scripts from commander's command tree (subcommands and options at each level,
// file names after an option that takes a value), so a new command or option completes at once.
import type { Command, Option } from 'commander';

interface Level {
  /** The subcommands typed so far, space-separated ("" at the top, "token list"). */
  path: string;
  subcommands: string[];
  options: string[];
  /** Options that take a value (the next word is theirs, not a subcommand). */
  valued: string[];
}

const flags = (options: readonly Option[]) =>
  options.flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));

function levels(command: Command, path = ''): Level[] {
  const here: Level = {
    path,
    subcommands: command.commands.map((c) => c.name()),
    options: [...flags(command.options), '--help'],
    valued: flags(command.options.filter((o) => o.required || o.optional)),
  };
  return [here, ...command.commands.flatMap((c) => levels(c, path ? `${path} ${c.name()}` : c.name()))];
}

/** Shell functions shared by both scripts: what completes at a level, and which options take a value. */
function table(program: Command, prefix: string): string {
  const all = levels(program);
  const lookup = (key: 'subcommands' | 'options' | 'valued') => `${prefix}_${key}() {
  case "$1" in
${all.map((l) => `    '${l.path}') echo '${l[key].join(' ')}' ;;`).join('\n')}
  esac
}`;
  return `${lookup('subcommands')}
${lookup('options')}
${lookup('valued')}
# The subcommands among the words before the cursor ($@), skipping options and their values.
${prefix}_path() {
  local cmdpath='' w skip=0
  for w in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "$w" in
      -*) case " $(${prefix}_valued "$cmdpath") " in *" $w "*) skip=1 ;; esac; continue ;;
    esac
    case " $(${prefix}_subcommands "$cmdpath") " in
      *" $w "*) cmdpath="\${cmdpath:+$cmdpath }$w" ;;
    esac
  done
  printf '%s' "$cmdpath"
}`;
}

export function bashCompletion(program: Command): string {
  const name = program.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  return `# bash completion for ${name}; load it with:
#   source <(${name} completion bash)
# or install it: ${name} completion bash > /etc/bash_completion.d/${name}
${table(program, fn)}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local cmdpath
  cmdpath="$(${fn}_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}")"
  case " $(${fn}_valued "$cmdpath") " in
    *" $prev "*) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(${fn}_options "$cmdpath")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(${fn}_subcommands "$cmdpath")" -- "$cur"))
  fi
}
complete -o default -F ${fn} ${name}
`;
}

export function zshCompletion(program: Command): string {
  const name = program.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  return `#compdef ${name}
# zsh completion for ${name}; load it with:
#   source <(${name} completion zsh)
# or install it as _${name} in a directory of $fpath.
${table(program, fn)}
${fn}() {
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}"
  local cmdpath
  cmdpath="$(${fn}_path "\${(@)words[2,CURRENT-1]}")"
  case " $(${fn}_valued "$cmdpath") " in
    *" $prev "*) _files; return ;;
  esac
  if [[ "$cur" == -* ]]; then
    compadd -- \${=$(${fn}_options "$cmdpath")}
  else
    compadd -- \${=$(${fn}_subcommands "$cmdpath")}
  fi
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${name}
fi
`;
}
