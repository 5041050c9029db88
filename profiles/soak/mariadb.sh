#!/bin/sh
# Soak workloads for profiles/mariadb.pol: a fresh MariaDB data directory
# in /var/lib/polc-soak/mariadb, mariadbd as user mysql on 127.0.0.1 and a
# unix socket there.
#   load a (recorded by `make profiles`): InnoDB: mysqlslap's generated
#          mixed reads and writes, several clients, for SECONDS;
#   load b (a different legitimate use): Aria and MyISAM tables (create,
#          insert, select, ALTER, a temporary table), the server restarted,
#          the tables checked and read after the restart, then InnoDB load.
#   sh profiles/soak/mariadb.sh POLC record OUTDIR a|b [TRACER] [SECONDS]
#        -> OUTDIR/mariadb.trace (load a); load b's two server runs:
#           OUTDIR/mariadb-b.trace, OUTDIR/mariadb-b2.trace
#   sh profiles/soak/mariadb.sh POLC run PROFILE a|b [SECONDS]   (polc run --target seccomp;
#        with AUDIT=LOG in the environment, --mode audit: what it would deny goes to
#        LOG (after the restart: LOG2))
set -eu
. "$(dirname "$0")/lib.sh"
soak_args mariadb "$@"
PORT=${MARIADB_PORT:-3391}
D=/var/lib/polc-soak/mariadb
rm -rf "$D"
mkdir -p "$D"
chown mysql: "$D"
mariadb-install-db --no-defaults --datadir="$D/data" --user=mysql --skip-test-db \
	--auth-root-authentication-method=normal >/dev/null 2>&1 ||
	{ echo "mariadb-install-db failed" >&2; exit 1; }
sql() { mariadb --no-defaults -S "$D/mysqld.sock" -uroot "$@"; }
start() { # prefix...
	"$@" mariadbd --no-defaults --datadir="$D/data" --socket="$D/mysqld.sock" \
		--port="$PORT" --bind-address=127.0.0.1 --user=mysql --pid-file="$D/mariadb.pid" \
		--log-error="$D/error.log" --skip-name-resolve --innodb-buffer-pool-size=64M &
	srv=$!
	i=0
	until sql -e 'select 1' >/dev/null 2>&1; do
		i=$((i + 1)); [ $i -lt 600 ] || { tail "$D/error.log" >&2; echo "mariadb did not start" >&2; exit 1; }
		sleep 0.1
	done
}
stop() {
	mariadb-admin --no-defaults -S "$D/mysqld.sock" -uroot shutdown
	wait $srv
}
trap 'mariadb-admin --no-defaults -S "$D/mysqld.sock" -uroot shutdown >/dev/null 2>&1 || true' EXIT
innodb() {
	mysqlslap --no-defaults -S "$D/mysqld.sock" -uroot --engine=innodb --auto-generate-sql \
		--auto-generate-sql-load-type=mixed --concurrency=4 --number-of-queries=400 \
		--iterations=1 >/dev/null || { echo "mariadb: mysqlslap failed" >&2; exit 1; }
	# and over TCP
	mariadb --no-defaults -h 127.0.0.1 -P "$PORT" -uroot -e 'select count(*) from mysql.user' \
		>/dev/null || { echo "mariadb: TCP query failed" >&2; exit 1; }
}
start $(soak_prefix)
end=$(( $(date +%s) + SECS ))
n=0
if [ "$LOAD" = b ]; then
	sql -e "create database soak"
	sql soak -e "create table soak.a (id int primary key, v varchar(64)) engine=Aria;
	  create table soak.m (id int primary key, v varchar(64)) engine=MyISAM;
	  insert into soak.a select seq, concat('row', seq) from seq_1_to_2000;
	  insert into soak.m select seq, concat('row', seq) from seq_1_to_2000;
	  alter table soak.m add column w int default 7;
	  create temporary table soak.t engine=Aria as select * from soak.a where id < 100;
	  select count(*) from soak.a join soak.m using (id);" >/dev/null ||
		{ echo "mariadb: Aria/MyISAM statements failed" >&2; exit 1; }
	stop
	start $(soak_prefix 2)
	[ "$(sql -N -e 'check table soak.a, soak.m' | grep -c 'status.OK')" = 2 ] ||
		{ echo "mariadb: tables not OK after restart" >&2; exit 1; }
	[ "$(sql -N -e 'select count(*) from soak.a join soak.m using (id)')" = 2000 ] ||
		{ echo "mariadb: rows lost" >&2; exit 1; }
	sql -e "optimize table soak.m; repair table soak.a; drop database soak" >/dev/null
fi
while [ $n = 0 ] || [ "$(date +%s)" -lt $end ]; do innodb; n=$((n + 1)); done
echo "mariadb load $LOAD: $n rounds in ${SECS}s"
stop
trap - EXIT
exit 0
