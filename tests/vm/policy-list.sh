# policy-list.sh - sourced by the lab's verify tests: writes $dir/library.pol
# (one policy per library rule) and $dir/list, "N file policy" lines for
# every policy there, in examples/ and in profiles/ (N names the output: two
# files may hold policies of the same name). Needs POLC, SRC and dir.
"$POLC" rules | grep -E '^[a-z0-9][a-z0-9-]*$' | while read -r r; do
	printf 'policy lib-%s {\n  use %s;\n}\n' "$r" "$r"
done > "$dir/library.pol"
nrules=$(grep -c '^policy' "$dir/library.pol")
[ "$nrules" -ge 90 ] || { echo "FAIL: only $nrules library rules"; exit 1; }
: > "$dir/list"; i=0
for f in "$dir/library.pol" "$SRC"/examples/*.pol "$SRC"/profiles/*.pol; do
	for p in $(sed -n 's/^policy \([A-Za-z0-9_-]*\).*/\1/p' "$f"); do
		i=$((i + 1)); echo "$i $f $p" >> "$dir/list"
	done
done
