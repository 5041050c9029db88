#!/bin/sh
# second-load.sh: does a profile survive a second, different legitimate
# load? For each server: load a and load b recorded (eBPF recorder), then
# profiles generated as `make profiles` does (--deny-default file,exec):
#   A-exact  from load a alone, --no-families (before generalisation)
#   A        from load a alone (the families and path generalisation)
#   A+B      from both loads (what profiles/*.pol ship)
# and both loads re-run under each with `polc run --target seccomp --mode
# audit`: the syscalls each profile would refuse ("name(calls)"), then load b
# enforced under A and A+B. Prints one table row per server and profile:
#   server profile syscalls file-rules refused-under-a refused-under-b enforced-b
# (refused: 0, "name(calls),...", or load-failed; enforced-b: pass, FAIL, -)
#   sh profiles/soak/second-load.sh POLC [SECONDS] [SERVER...]
#      (servers: nginx memcached mariadb sqlite3 python-http; work in
#      $WORK, default a fresh temporary directory, kept)
set -u
POLC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SECS=${2:-3}
shift 2 2>/dev/null || shift $#
S=$(cd "$(dirname "$0")" && pwd)
. "$S/lib.sh"
W=${WORK:-$(mktemp -d)}
mkdir -p "$W"
# refused LOG...: the calls logged as refused, "name(calls),..."
refused() { cat "$@" 2>/dev/null | awk '$1 == "syscall" { printf "%s%s(%s)", n++ ? "," : "", $3, $4 }'; }
audit() {   # audit SERVER PROFILE LOAD -> 0, the refused syscalls, or load-failed
	rm -f "$W/log"*
	AUDIT=$W/log sh "$S/$1.sh" "$POLC" run "$2" "$3" "$SECS" >"$W/out" 2>&1 ||
		{ echo "load-failed"; return; }
	r=$(refused "$W/log"*)
	echo "${r:-0}"
}
enforced() {
	sh "$S/$1.sh" "$POLC" run "$2" b "$SECS" >"$W/out.enf" 2>&1 && echo pass || echo FAIL
}
printf '%-12s %-8s %8s %10s  %-24s %-24s %s\n' server profile syscalls file-rules \
	refused-under-a refused-under-b enforced-b
for s in ${*:-nginx memcached mariadb sqlite3 python-http}; do
	miss=$(soak_missing "$s")
	[ -z "$miss" ] || { echo "$s: SKIP ($miss not installed)"; continue; }
	rm -f "$W/$s"*.trace
	sh "$S/$s.sh" "$POLC" record "$W" a ebpf "$SECS" >"$W/$s.rec" 2>&1 &&
		sh "$S/$s.sh" "$POLC" record "$W" b ebpf "$SECS" >>"$W/$s.rec" 2>&1 ||
		{ echo "$s: recording failed: $(tail -n 3 "$W/$s.rec")"; continue; }
	g="$POLC gen --name $(echo "$s" | tr - _) --deny-default file,exec"
	$g --no-families -o "$W/$s-A-exact.pol" "$W/$s.trace" 2>/dev/null
	$g -o "$W/$s-A.pol" "$W/$s.trace" 2>/dev/null
	$g -o "$W/$s-A+B.pol" "$W/$s.trace" "$W/$s"-b*.trace 2>/dev/null
	for p in A-exact A A+B; do
		P=$W/$s-$p.pol
		e=-
		[ "$p" = A-exact ] || e=$(enforced "$s" "$P")
		printf '%-12s %-8s %8s %10s  %-24s %-24s %s\n' "$s" "$p" \
			"$(grep -c '^    [a-z0-9_]*[,;]' "$P")" "$(grep -c -E '^ *(allow|deny) file ' "$P")" \
			"$(audit "$s" "$P" a)" "$(audit "$s" "$P" b)" "$e"
	done
done
echo "work: $W"
