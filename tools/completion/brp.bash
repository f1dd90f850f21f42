# bash completion for brp. The commands and each command's options are read
# from brp's own --help, so this file never falls out of step with the tool.
_brp()
{
	local cur prev cmd words cword
	if declare -F _init_completion > /dev/null; then
		_init_completion || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		cword=$COMP_CWORD
		words=("${COMP_WORDS[@]}")
	fi
	local brp=${words[0]}

	if [ "$cword" -eq 1 ]; then
		local cmds
		cmds=$("$brp" --help 2> /dev/null | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
		COMPREPLY=($(compgen -W "$cmds help --help --version" -- "$cur"))
		return
	fi
	cmd=${words[1]}
	if [ "$cmd" = help ]; then
		[ "$cword" -eq 2 ] && COMPREPLY=($(compgen -W \
			"$("$brp" --help 2> /dev/null | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')" -- "$cur"))
		return
	fi
	case $prev in
	-r | --rules)
		COMPREPLY=($(compgen -W "kzv stbl aberto" -- "$cur"))
		return
		;;
	-b | --bot)
		COMPREPLY=($(compgen -W "greedy random mixed blunder search peeker feeder signaller" -- "$cur"))
		return
		;;
	-e | --end)
		COMPREPLY=($(compgen -W "low high default" -- "$cur"))
		return
		;;
	--commitment-version)
		COMPREPLY=($(compgen -W "1 2" -- "$cur"))
		return
		;;
	--seat)
		# view, show, review: a seat; record, deal: I=NAME, a seat first
		if [ "$cmd" = record ] || [ "$cmd" = deal ]; then
			compopt -o nospace 2> /dev/null
			COMPREPLY=($(compgen -W "0= 1= 2= 3=" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "0 1 2 3" -- "$cur"))
		fi
		return
		;;
	-p | --players)
		COMPREPLY=($(compgen -W "2 4" -- "$cur"))
		return
		;;
	-o | --output | --from-list | --sqlite | -k | -K | --keyring | --review)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--log)
		# a log's path, or - for standard input
		COMPREPLY=($(compgen -W "-" -- "$cur") $(compgen -f -- "$cur"))
		return
		;;
	--csv)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		local opts
		opts=$("$brp" "$cmd" --help 2> /dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	if [ "$cmd" = arena ]; then
		# the two bot kinds, A and B
		COMPREPLY=($(compgen -W "greedy random search search:" -- "$cur"))
		return
	fi
	if [ "$cmd" = rules ]; then
		COMPREPLY=($(compgen -W "kzv stbl aberto" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _brp brp
