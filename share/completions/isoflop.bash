# bash completion for isoflop: commands and each command's options, read from the binary's own help
# so it stays right as commands are added.
_isoflop_commands() {
  "${1:-isoflop}" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
}

# The option lines of the help ("  --params N  ...", "  -j [ --jobs ] N  ..."), not the flags its prose mentions.
_isoflop_options() {
  "$1" "$2" --help 2>/dev/null | sed -n '/^Options:/,/^Examples:/p' | grep -oE '^  (-[a-z] \[ )?--[a-z][a-z0-9-]*' |
    grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}

_isoflop() {
  local cur prog command
  cur="${COMP_WORDS[COMP_CWORD]}"
  prog="${COMP_WORDS[0]}"
  command -v "$prog" >/dev/null 2>&1 || prog=isoflop
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$(_isoflop_commands "$prog") help --help --version" -- "$cur"))
    return 0
  fi
  command="${COMP_WORDS[1]}"
  case "${COMP_WORDS[COMP_CWORD-1]}" in
    -o|--format)
      if [ "$command" = check ]; then COMPREPLY=($(compgen -W "table json yaml csv junit" -- "$cur"))
      else COMPREPLY=($(compgen -W "table json yaml csv" -- "$cur")); fi
      return 0 ;;
    --policy) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
    --junit) COMPREPLY=($(compgen -f -X '!*.xml' -- "$cur")); return 0 ;;
    --annotations) COMPREPLY=($(compgen -W "github" -- "$cur")); return 0 ;;
    --catalog) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
    --plot) COMPREPLY=($(compgen -f -X '!*.svg' -- "$cur")); return 0 ;;
    --style) [ "$command" = arch ] && COMPREPLY=($(compgen -W "chinchilla kaplan megatron llama2 llama3" -- "$cur")) && return 0 ;;
    --out) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
    --target) COMPREPLY=($(compgen -W "megatron deepspeed nemo slurm all" -- "$cur")); return 0 ;;
    --trainer) COMPREPLY=($(compgen -W "megatron deepspeed nemo fsdp" -- "$cur")); return 0 ;;
    --kind) [ "$command" = catalog ] && COMPREPLY=($(compgen -W "all hardware grids laws models cost trainers" -- "$cur")) && return 0 ;;
    --target-version) COMPREPLY=($(compgen -W "core_v0.8.0 core_v0.13.0 v1.22.0 v1.23.0 v2.4.0" -- "$cur")); return 0 ;;
    --check) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
  esac
  case "$command:${COMP_WORDS[COMP_CWORD-1]}" in
    validate:--preset) COMPREPLY=($(compgen -W "smoke cpu gpu" -- "$cur")); return 0 ;;
    validate:--source) COMPREPLY=($(compgen -W "quanta markov" -- "$cur")); return 0 ;;
    validate:--emit) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
  esac
  if [ "$command" = validate ] && [ "$COMP_CWORD" -eq 2 ] && [[ "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W "run report" -- "$cur"))
    return 0
  fi
  if [ "$command" = emit ] && [ "$COMP_CWORD" -eq 2 ] && [[ "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W "megatron deepspeed nemo slurm all" -- "$cur"))
    return 0
  fi
  if [ "$command" = catalog ] && [ "$COMP_CWORD" -eq 2 ] && [[ "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W "all hardware grids laws models cost trainers" -- "$cur"))
  elif [ "$command" = help ]; then
    COMPREPLY=($(compgen -W "$(_isoflop_commands "$prog")" -- "$cur"))
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_isoflop_options "$prog" "$command")" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
  return 0
}
complete -F _isoflop isoflop
