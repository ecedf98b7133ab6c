# netlab tests: helpers for scripts that run inside `netlab run` (NETLAB_RUN is set).
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
stat_of() { field "$4" "$("$NETLAB" stats | grep "^link rail=$1 src=$2 dst=$3 ")"; }
