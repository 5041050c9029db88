# bash completion for polc (installed by `make install` into
# $(PREFIX)/share/bash-completion/completions/polc). Commands come from
# `polc --help` and each command's options from `polc help COMMAND`, so
# the completion follows the binary it completes.
_polc()
{
	local cur prev cmd i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--) return 0 ;;            # the workload's command line
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$(polc --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p') help --version" -- "$cur"))
		return 0
	fi
	case $prev in
	--target|-t)
		COMPREPLY=($(compgen -W "$(polc help build 2>/dev/null | sed -n '/^  targets/,$s/^    \([a-z]\+\) .*/\1/p')" -- "$cur"))
		return 0 ;;
	--format|-f)
		COMPREPLY=($(compgen -W "$(polc help build 2>/dev/null | sed -n '/^  targets/,$s/^    [a-z]\+ \+//p' | tr ',' ' ')" -- "$cur"))
		return 0 ;;
	--from) COMPREPLY=($(compgen -W "varmor" -- "$cur")); return 0 ;;
	--tracer) COMPREPLY=($(compgen -W "ebpf ptrace" -- "$cur")); return 0 ;;
	--mode) COMPREPLY=($(compgen -W "enforce audit" -- "$cur")); return 0 ;;
	--spo-version) COMPREPLY=($(compgen -W "1 0.8" -- "$cur")); return 0 ;;
	--runtime) COMPREPLY=($(compgen -W "runc" -- "$cur")); return 0 ;;
	--domains|--deny-default)
		COMPREPLY=($(compgen -W "all syscall file exec capability mount network ptrace signal" -- "$cur"))
		return 0 ;;
	esac
	if [ "$cmd" = help ]; then
		COMPREPLY=($(compgen -W "$(polc --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p')" -- "$cur"))
		return 0
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(polc help "$cmd" 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u) --help" -- "$cur"))
		return 0
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _polc polc
