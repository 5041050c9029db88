#!/bin/sh
# Soak workloads for sqlite3, the command-line shell: one process fed SQL
# on stdin (SECONDS x 10 rounds: the shell reads ahead, so a writer bound
# by time would queue unbounded work), databases in
# /var/lib/polc-soak/sqlite3 (no path relative to the working directory).
#   load a: one database, main.db: inserts, aggregates, updates, deletes
#          (the table kept at 3,000 rows: its sorts stay in memory);
#   load b (a different legitimate use): load a's work, plus a second
#          database attached (side.db, with its own rollback journal) and,
#          every fourth round, sorts and an index build over 1 MB with a
#          small page cache, which spill to sqlite's temporary files
#          (/var/tmp/etilqs_<random>, opened O_EXCL and unlinked at once),
#          and a VACUUM of side.db.
#   sh profiles/soak/sqlite3.sh POLC record OUTDIR a|b [TRACER] [SECONDS]
#        -> OUTDIR/sqlite3.trace (load a), OUTDIR/sqlite3-b.trace (load b)
#   sh profiles/soak/sqlite3.sh POLC run PROFILE a|b [SECONDS]   (polc run --target seccomp;
#        TARGET=T: T; with AUDIT=LOG in the environment, --mode audit: what it would deny goes to LOG)
set -eu
. "$(dirname "$0")/lib.sh"
soak_args sqlite3 "$@"
D=/var/lib/polc-soak/sqlite3
rm -rf "$D"
mkdir -p "$D"
rounds=$(( SECS * 10 ))
st=$(date +%s)
# sql: the statements, round after round
sql() {
	echo "create table t (id integer primary key, k int, v text);"
	if [ "$LOAD" = b ]; then
		echo "attach '$D/side.db' as side;
		  create table side.s (id integer primary key, v text);
		  insert into side.s (v) select hex(randomblob(48)) from generate_series(1, 12000);"
	fi
	n=0
	while [ $n -lt $rounds ]; do
		echo "insert into t (k, v) select value % 97, hex(randomblob(16)) from generate_series(1, 500);
		  select count(*), sum(k) from t where k < 50;
		  update t set v = upper(v) where k = $((n % 97));
		  delete from t where id % 7 = $((n % 7)) and k > 90;
		  delete from t where id <= (select max(id) from t) - 3000;
		  select k, count(*) from t group by k order by 2 desc limit 3;"
		if [ "$LOAD" = b ] && [ $((n % 4)) = 0 ]; then
			echo "pragma cache_size = 20;
			  delete from side.s where id % 10 = $((n % 10));
			  insert into side.s (v) select hex(randomblob(48)) from generate_series(1, 1200);
			  select count(*) from (select v from side.s order by v);
			  drop index if exists side.si;
			  create index side.si on s (v);
			  select count(distinct v) from side.s;
			  vacuum side;
			  pragma cache_size = -2000;"
		fi
		n=$((n + 1))
	done
	echo "select 'rows', count(*) > 0 from t;"
}
sql | $(soak_prefix) sqlite3 -batch -bail "$D/main.db" > "$D/out" 2>&1 ||
	{ tail -n 5 "$D/out" >&2; echo "sqlite3: load $LOAD failed" >&2; exit 1; }
grep -qx 'rows|1' "$D/out" || { tail -n 5 "$D/out" >&2; echo "sqlite3: no rows" >&2; exit 1; }
echo "sqlite3 load $LOAD: $rounds rounds in $(( $(date +%s) - st ))s"
exit 0
