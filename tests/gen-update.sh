# gen-update.sh - sourced by the polc gen tests that judge a profile from
# run A against runs A never made (t_gen_listing, t_gen_owned). Needs POLC,
# T (a scratch directory) and fail().
#   rec NAME COMMAND   a ptrace trace $T/NAME.trace of sh -c COMMAND run in /
#                      (so the working-directory rule plays no part); the
#                      run must exit 0
#   a_allows_b WHAT    gen makes $T/A.pol from $T/A.trace (as make profiles
#                      does), polc check passes it, and it allows all of
#                      $T/B.trace (gen --update finds nothing to add)
#   upd NAME COMMAND PATTERN   records NAME; A's profile must refuse some of
#                      it: gen --update adds a line matching "+  allow PATTERN"
rec() {
	(cd / && "$POLC" record --tracer ptrace -o "$T/$1.trace" -- sh -c "$2") > "$T/$1.out" 2>&1 ||
		fail "record $1: $(cat "$T/$1.out")"
	grep -q '^meta exit "status 0" 1' "$T/$1.trace" || fail "run $1 failed: $(grep '^meta' "$T/$1.trace")"
}
a_allows_b() {
	"$POLC" gen --name p --deny-default file,exec -o "$T/A.pol" "$T/A.trace" || fail "gen: exit $?"
	"$POLC" check "$T/A.pol" > "$T/check" 2>&1 || fail "polc check: $(cat "$T/check")"
	cp "$T/A.pol" "$T/A2.pol"
	"$POLC" gen --update "$T/A2.pol" "$T/B.trace" > "$T/upd" 2>&1 || fail "gen --update B: $(cat "$T/upd")"
	grep -q "already allows everything" "$T/upd" || fail "B ($1) needed more than A's profile: $(cat "$T/upd")"
}
upd() {
	rec "$1" "$2"
	cp "$T/A.pol" "$T/U.pol"
	"$POLC" gen --update "$T/U.pol" -o "$T/U2.pol" "$T/$1.trace" > "$T/upd" 2>&1
	grep -q "^+  allow $3" "$T/upd" || fail "$1 ($2) allowed by A's profile: $(cat "$T/upd")"
}
