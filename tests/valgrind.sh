#!/bin/sh
# The exe_wrapper of `meson test --setup=valgrind`: a compiled test runs under
# valgrind (any error, a leak included, fails it); a script test runs as it
# is, since valgrind would only check the shell or Python behind it.
case $(head -c 4 "$1" 2> /dev/null | od -An -c | tr -d ' \n') in
'177ELF')
	exec valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,possible \
		--show-leak-kinds=definite,possible --quiet "$@"
	;;
esac
exec "$@"
