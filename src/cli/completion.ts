// Shell completion scripts from commander's command tree, so a new command or option completes at once; fixed
// values are written in, usernames and token ids read when Tab is pressed (`archivectl __values`).
import type { Argument, Command, Option } from 'commander';
import { ROLES } from '../domain/roles.js';
import { ALL_SETTING_NAMES } from '../domain/setting-names.js';
import { TOKEN_KINDS, TOKEN_STATUSES } from '../domain/tokens/queries.js';

/** The values asked from the database at Tab: `__values <kind>` (actions/completion.ts). */
export const DYNAMIC = ['usernames', 'tokens'] as const;
export type Dynamic = (typeof DYNAMIC)[number];

/**
 * What completes a value, by option or argument name (an argument also as `<command path>:<name>`):
 * words, `@usernames` or `@tokens` (from the database), `@files`; nothing when not listed.
 */
const VALUES: Record<string, readonly string[]> = {
  '--config': ['@files'],
  file: ['@files'],
  'file.json': ['@files'],
  '--role': ROLES,
  role: ROLES,
  '--status': TOKEN_STATUSES,
  '--kind': TOKEN_KINDS,
  'settings set:name': ALL_SETTING_NAMES,
  'settings set:value': ['on', 'off'],
  '--as': ['@usernames'],
  '--account': ['@usernames'],
  username: ['@usernames'],
  id: ['@tokens'],
};

interface Level {
  /** The subcommands typed so far, space-separated ("" at the top, "token list"). */
  path: string;
  subcommands: string[];
  options: string[];
  /** Options that take a value (the next word is theirs, not a subcommand). */
  valued: string[];
  /** What the values of options (`--role`) and arguments (`1`, `2`: by position) complete to. */
  values: [string, readonly string[]][];
}

const flags = (options: readonly Option[]) =>
  options.flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));

function levels(command: Command, path = ''): Level[] {
  const visible = command.commands.filter((c) => !c.name().startsWith('__'));
  const valued = command.options.filter((o) => o.required || o.optional);
  const values: [string, readonly string[]][] = [];
  for (const o of valued) {
    const words = o.long ? (o.argChoices ?? VALUES[o.long]) : undefined;
    if (o.long && words) values.push([o.long, words]);
  }
  command.registeredArguments.forEach((a: Argument, i) => {
    const words = a.argChoices ?? VALUES[`${path}:${a.name()}`] ?? VALUES[a.name()];
    if (words) values.push([String(i + 1), words]);
  });
  const here: Level = {
    path,
    subcommands: visible.map((c) => c.name()),
    options: [...flags(command.options), '--help'],
    valued: flags(valued),
    values,
  };
  return [here, ...visible.flatMap((c) => levels(c, path ? `${path} ${c.name()}` : c.name()))];
}

/** Shell functions shared by both scripts: what completes at a level, and which options take a value. */
function table(program: Command, prefix: string): string {
  const all = levels(program);
  const lookup = (key: 'subcommands' | 'options' | 'valued') => `${prefix}_${key}() {
  case "$1" in
${all.map((l) => `    '${l.path}') echo '${l[key].join(' ')}' ;;`).join('\n')}
  esac
}`;
  const values = all.flatMap((l) =>
    l.values.map(([what, words]) => `    '${l.path}|${what}') echo '${words.join(' ')}' ;;`),
  );
  return `${lookup('subcommands')}
${lookup('options')}
${lookup('valued')}
# The values of an option ("$2" = --role) or an argument ("$2" = its position) at a level ("$1").
${prefix}_values() {
  case "$1|$2" in
${values.join('\n')}
  esac
}
# The subcommands among the words before the cursor ($@), skipping options and their values;
# then the number of arguments given to the last of them.
${prefix}_path() {
  local cmdpath='' w skip=0 args=0
  for w in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "$w" in
      -*) case " $(${prefix}_valued "$cmdpath") " in *" $w "*) skip=1 ;; esac; continue ;;
    esac
    case " $(${prefix}_subcommands "$cmdpath") " in
      *" $w "*) cmdpath="\${cmdpath:+$cmdpath }$w"; args=0 ;;
      *) args=$((args + 1)) ;;
    esac
  done
  printf '%s|%s' "$cmdpath" "$args"
}
# The words a value completes to: fixed ones, or those the database holds now (given --config).
${prefix}_words() {
  local words
  words="$(${prefix}_values "$1" "$2")"
  case "$words" in
    @files) printf '%s' "$words" ;;
    @*)
      if [ -n "$3" ]; then command ${program.name()} --config "$3" __values "\${words#@}" 2>/dev/null
      else command ${program.name()} __values "\${words#@}" 2>/dev/null; fi ;;
    *) printf '%s' "$words" ;;
  esac
}`;
}

/** Shared by both shells: the words that may complete `$cur`, into `list` (`@files`: file names). */
const chooseWords = (fn: string) => `  cmdpath="\${found%|*}" args="\${found##*|}"
  case " $(${fn}_valued "$cmdpath") " in
    *" $prev "*)
      list="$(${fn}_words "$cmdpath" "$prev" "$config")" ;;
    *)
      if [[ "$cur" == -* ]]; then
        list="$(${fn}_options "$cmdpath")"
      else
        list="$(${fn}_subcommands "$cmdpath")"
        if [ "$args" -gt 0 ] || [ -z "$list" ]; then list="$(${fn}_words "$cmdpath" "$((args + 1))" "$config")"; fi
      fi ;;
  esac`;

export function bashCompletion(program: Command): string {
  const name = program.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  return `# bash completion for ${name}; load it with:
#   source <(${name} completion bash)
# or install it: ${name} completion bash > /etc/bash_completion.d/${name}
${table(program, fn)}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local found cmdpath args config='' i list
  for ((i = 1; i < COMP_CWORD - 1; i++)); do
    [ "\${COMP_WORDS[i]}" = --config ] && config="\${COMP_WORDS[i+1]}"
  done
  found="$(${fn}_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}")"
${chooseWords(fn)}
  if [ "$list" = @files ]; then COMPREPLY=($(compgen -f -- "$cur")); else COMPREPLY=($(compgen -W "$list" -- "$cur")); fi
}
complete -o filenames -F ${fn} ${name}
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
  local found cmdpath args config='' i list
  for ((i = 2; i < CURRENT - 1; i++)); do
    [[ "\${words[i]}" == --config ]] && config="\${words[i+1]}"
  done
  found="$(${fn}_path "\${(@)words[2,CURRENT-1]}")"
${chooseWords(fn)}
  if [[ "$list" == @files ]]; then _files; elif [[ -n "$list" ]]; then compadd -- \${=list}; fi
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${name}
fi
`;
}
