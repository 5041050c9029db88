#!/bin/sh
# Soak workloads for profiles/nginx.pol: nginx (master and two workers as
# www-data) serving a fixed tree on 127.0.0.1 from /var/lib/polc-soak/nginx.
#   load a (recorded by `make profiles`): static files of several sizes,
#          with keep-alive, HEAD and 404s, for SECONDS;
#   load b (a different legitimate use): directory listings (autoindex),
#          a configuration reload (nginx -s reload), then static files and
#          listings again from the new workers.
#   sh profiles/soak/nginx.sh POLC record OUTDIR a|b [TRACER] [SECONDS]
#        -> OUTDIR/nginx.trace (load a), OUTDIR/nginx-b.trace (load b)
#   sh profiles/soak/nginx.sh POLC run PROFILE a|b [SECONDS]   (polc run --target seccomp;
#        with AUDIT=LOG in the environment, --mode audit: what it would deny goes to LOG)
set -eu
. "$(dirname "$0")/lib.sh"
soak_args nginx "$@"
PORT=${NGINX_PORT:-8391}
D=/var/lib/polc-soak/nginx
rm -rf "$D"
mkdir -p "$D/www/list/sub" "$D/tmp"
for i in 1 2 3 4 5 6; do
	head -c $((i * i * 1000)) /dev/zero | tr '\0' x > "$D/www/f$i.txt"
	echo "entry $i" > "$D/www/list/e$i"
done
echo '<html>polc soak</html>' > "$D/www/index.html"
chown -R www-data: "$D/tmp"
cat > "$D/nginx.conf" <<CONF
user www-data;
worker_processes 2;
daemon off;
pid $D/nginx.pid;
error_log $D/error.log;
events { worker_connections 64; }
http {
	access_log $D/access.log;
	client_body_temp_path $D/tmp/body;
	proxy_temp_path $D/tmp/proxy;
	fastcgi_temp_path $D/tmp/fastcgi;
	uwsgi_temp_path $D/tmp/uwsgi;
	scgi_temp_path $D/tmp/scgi;
	server {
		listen 127.0.0.1:$PORT;
		root $D/www;
		location /list/ { autoindex on; }
	}
}
CONF
$(soak_prefix) nginx -c "$D/nginx.conf" -e "$D/error.log" &
srv=$!
quit() { nginx -c "$D/nginx.conf" -e "$D/error.log" -s quit 2>/dev/null || true; }
trap quit EXIT
i=0
until curl -sf -o /dev/null "http://127.0.0.1:$PORT/"; do
	i=$((i + 1)); [ $i -lt 200 ] || { cat "$D/error.log" >&2; echo "nginx did not start" >&2; exit 1; }
	sleep 0.05
done
u=http://127.0.0.1:$PORT
statics() {
	curl -sf "$u/" "$u/f1.txt" "$u/f2.txt" "$u/f3.txt" "$u/f4.txt" "$u/f5.txt" \
		"$u/f6.txt" "$u/index.html" >/dev/null || { echo "nginx: a static file failed" >&2; exit 1; }
	curl -sfI -o /dev/null "$u/f6.txt"
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$u/none")" = 404 ] || { echo "nginx: no 404" >&2; exit 1; }
}
listings() {
	curl -sf "$u/list/" | grep -q 'e6' || { echo "nginx: no directory listing" >&2; exit 1; }
	curl -sf "$u/list/sub/" >/dev/null || { echo "nginx: no sub listing" >&2; exit 1; }
}
end=$(( $(date +%s) + SECS ))
n=0
if [ "$LOAD" = a ]; then
	while [ $n = 0 ] || [ "$(date +%s)" -lt $end ]; do statics; n=$((n + 1)); done
else
	listings
	old=$(cat "$D/nginx.pid")
	nginx -c "$D/nginx.conf" -e "$D/error.log" -s reload
	# the new workers answer once the reload is done (a new generation)
	sleep 1
	listings; statics; n=1
	while [ $n = 0 ] || [ "$(date +%s)" -lt $end ]; do listings; statics; n=$((n + 1)); done
	[ "$(cat "$D/nginx.pid")" = "$old" ] || { echo "nginx: the master changed on reload" >&2; exit 1; }
fi
echo "nginx load $LOAD: $n rounds in ${SECS}s"
quit
wait $srv
trap - EXIT
grep -E '\[(emerg|alert|crit)\]' "$D/error.log" >&2 && { echo "nginx logged errors" >&2; exit 1; }
exit 0
