#!/bin/sh
# Soak workloads for python's http.server (python3 -m http.server) serving
# a fixed tree on 127.0.0.1 from /var/lib/polc-soak/python-http.
#   load a: static files of several sizes, HEAD and 404s, for SECONDS;
#   load b (a different legitimate use): directory listings (the server's
#          own index pages, with a name that needs quoting), conditional
#          GETs (If-Modified-Since: 304), an unsupported method (POST: 501)
#          and a bad request line (400), then load a's files again.
#   sh profiles/soak/python-http.sh POLC record OUTDIR a|b [TRACER] [SECONDS]
#        -> OUTDIR/python-http.trace (load a), OUTDIR/python-http-b.trace (load b)
#   sh profiles/soak/python-http.sh POLC run PROFILE a|b [SECONDS]   (polc run --target seccomp;
#        with AUDIT=LOG in the environment, --mode audit: what it would deny goes to LOG)
set -eu
. "$(dirname "$0")/lib.sh"
soak_args python-http "$@"
PORT=${PYHTTP_PORT:-8392}
D=/var/lib/polc-soak/python-http
rm -rf "$D"
mkdir -p "$D/www/list/sub dir"
for i in 1 2 3 4 5 6; do
	head -c $((i * i * 1000)) /dev/zero | tr '\0' x > "$D/www/f$i.txt"
	echo "entry $i" > "$D/www/list/e$i"
done
echo '<html>polc soak</html>' > "$D/www/home.html"
# -u: unbuffered, so its log reaches the file before it is killed
# the system python (not a shim on PATH, e.g. pyenv's, which is a shell
# script); SIGINT at its default, which an asynchronous command of a
# script does not have: python then ignores it, and it is how the server
# is asked to end (exit 0)
env --default-signal=INT $(soak_prefix) /usr/bin/python3 -u -m http.server "$PORT" --bind 127.0.0.1 --directory "$D/www" \
	>"$D/server.log" 2>&1 &
srv=$!
# the python process: $srv itself, or its child under a wrapper that forks
# (polc record, polc run --mode audit); SIGINT ends http.server with 0
pysrv() {
	p=$srv
	for _ in 1 2 3; do
		case $(cat /proc/$p/comm 2>/dev/null) in python*) echo $p; return ;; esac
		p=$(cat /proc/$p/task/*/children 2>/dev/null | awk '{ print $1; exit }')
		[ -n "$p" ] || break
	done
	echo $srv
}
trap 'kill -INT $(pysrv) 2>/dev/null || true' EXIT
u=http://127.0.0.1:$PORT
i=0
until curl -sf -o /dev/null "$u/home.html"; do
	i=$((i + 1)); [ $i -lt 200 ] || { cat "$D/server.log" >&2; echo "http.server did not start" >&2; exit 1; }
	sleep 0.05
done
statics() {
	curl -sf "$u/f1.txt" "$u/f2.txt" "$u/f3.txt" "$u/f4.txt" "$u/f5.txt" "$u/f6.txt" \
		"$u/home.html" >/dev/null || { echo "http.server: a static file failed" >&2; exit 1; }
	curl -sfI -o /dev/null "$u/f6.txt"
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$u/none")" = 404 ] ||
		{ echo "http.server: no 404" >&2; exit 1; }
}
others() {
	curl -sf "$u/list/" | grep -q 'e6' || { echo "http.server: no directory listing" >&2; exit 1; }
	curl -sf "$u/list/sub%20dir/" >/dev/null || { echo "http.server: no sub listing" >&2; exit 1; }
	[ "$(curl -s -o /dev/null -w '%{http_code}' -H 'If-Modified-Since: Fri, 01 Jan 2100 00:00:00 GMT' \
		"$u/f3.txt")" = 304 ] || { echo "http.server: no 304" >&2; exit 1; }
	[ "$(curl -s -o /dev/null -w '%{http_code}' -d x "$u/f1.txt")" = 501 ] ||
		{ echo "http.server: no 501 for POST" >&2; exit 1; }
	[ "$(curl -s -o /dev/null -w '%{http_code}' -X 'BAD METHOD' "$u/")" = 400 ] ||
		{ echo "http.server: no 400" >&2; exit 1; }
}
end=$(( $(date +%s) + SECS ))
n=0
while [ $n = 0 ] || [ "$(date +%s)" -lt $end ]; do
	[ "$LOAD" = a ] || others
	statics
	n=$((n + 1))
done
echo "python-http load $LOAD: $n rounds in ${SECS}s"
kill -INT "$(pysrv)"
st=0
wait $srv || st=$?
trap - EXIT
[ $st = 0 ] || { tail -n 5 "$D/server.log" >&2; echo "http.server exited $st" >&2; exit 1; }
grep -q Traceback "$D/server.log" && { tail -n 20 "$D/server.log" >&2; echo "http.server: a traceback" >&2; exit 1; }
exit 0
