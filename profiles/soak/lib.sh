# lib.sh - the arguments every server soak script (nginx, memcached,
# mariadb, sqlite3, python-http) takes, and the command prefix that starts its server:
#   SCRIPT POLC record OUTDIR a|b [TRACER] [SECONDS]   recorded by polc record
#   SCRIPT POLC run PROFILE a|b [SECONDS]              polc run --target seccomp (TARGET=T: T)
# (AUDIT=LOG in the environment: --mode audit, what it would deny to LOG).
# Paths must not hold spaces (the prefix is split on them).

# soak_args NAME "$@": sets POLC MODE LOAD SECS, and OUT TRACER or PROFILE.
soak_args() {
	name=$1 POLC=$2 MODE=$3
	case $MODE in
	record) OUT=$4 LOAD=$5 TRACER=${6:-ebpf} SECS=${7:-20}; mkdir -p "$OUT" ;;
	run) PROFILE=$4 LOAD=$5 SECS=${6:-3} ;;
	*) echo "usage: $name.sh POLC record OUTDIR a|b [TRACER] [SECONDS]" >&2
	   echo "       $name.sh POLC run PROFILE a|b [SECONDS]" >&2; exit 2 ;;
	esac
	case $LOAD in a|b) ;; *) echo "$name.sh: load a or b, not '$LOAD'" >&2; exit 2 ;; esac
}

# soak_prefix [2]: the prefix for the server's first (or, after a restart,
# second) start: the trace NAME.trace (load a) or NAME-b[2].trace, or the
# confinement with the audit log LOG[2].
soak_prefix() {
	if [ "$MODE" = record ]; then
		f=$OUT/$name.trace
		[ "$LOAD" = a ] || f=$OUT/$name-$LOAD${1:-}.trace
		echo "$POLC record --tracer $TRACER --no-status -o $f --"
	else
		echo "$POLC run --target ${TARGET:-seccomp} --allow-partial ${AUDIT:+--mode audit -o $AUDIT${1:-}} $PROFILE --"
	fi
}

# soak_missing SERVER: the commands its soak script needs that are not
# installed (tools/deps.d/profiles), on one line; empty if none.
soak_missing() {
	case $1 in
	nginx) need="nginx curl" ;;
	memcached) need="memcached memcslap memcstat memcping memccp memccat memcrm memcflush" ;;
	mariadb) need="mariadbd mariadb mariadb-install-db mariadb-admin mysqlslap" ;;
	sqlite3) need=sqlite3 ;;
	python-http) need="/usr/bin/python3 curl" ;;
	*) need=$1 ;;
	esac
	miss=""
	for c in $need; do PATH=$PATH:/usr/sbin command -v $c >/dev/null || miss="$miss $c"; done
	echo $miss
}
