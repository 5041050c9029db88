#!/bin/sh
# Every --json output parses with python's json module when the strings in
# it are hostile: a file name with a quote, a backslash, control bytes
# (tab, newline, 0x01, 0x1f), valid UTF-8 and bytes that are not UTF-8
# (a lone 0xff, a truncated sequence, an overlong '/', a surrogate), and a
# glob holding the same. Checked: polc check --json (diagnostic file names),
# polc diff --json (event subjects and locations), polc verify --json, polc
# rules --json; each string decodes to the original text with every
# non-UTF-8 byte as U+FFFD.
set -u
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 0; }

# The hostile name, as bytes (printf octal escapes).
name=$(printf 'q"b\\s\tn\001u\037e\303\251-\377-\342\202-\300\257-\355\240\200.pol')
bad="$T/$name"
printf 'policy p {\n  default deny syscall;\n  allow syscall nosuchcall;\n}\n' >"$bad"

# check_json FILE PYTHON-EXPR...: FILE parses as JSON (bytes, strict UTF-8
# decoding by json.loads); each expression over `doc` must be true.
check_json() {
	f=$1; shift
	python3 - "$f" "$@" <<'EOF' || exit 1
import json, sys
raw = open(sys.argv[1], 'rb').read()
try:
    doc = json.loads(raw)
except Exception as e:
    print("FAIL: %s is not JSON: %s" % (sys.argv[1], e)); print(raw[:400]); sys.exit(1)
def ok(s, orig):
    # non-UTF-8 bytes became U+FFFD, everything else is the original text
    return s.replace('\ufffd', '') == orig.decode('utf-8', 'ignore') and '\ufffd' in s
for expr in sys.argv[2:]:
    if not eval(expr):
        print("FAIL: %s: not true: %s" % (sys.argv[1], expr)); print(json.dumps(doc)[:600]); sys.exit(1)
EOF
}
export HOSTILE="$bad"

"$POLC" check --json "$bad" >"$T/check.json" 2>/dev/null
[ $? = 1 ] || fail "check of a policy with an unknown syscall did not exit 1"
check_json "$T/check.json" \
	"any(ok(d.get('file', ''), __import__('os').environb[b'HOSTILE']) for d in (doc if isinstance(doc, list) else doc.get('diagnostics', [])))"

# diff: the subject holds the glob's text (strings in a policy are UTF-8
# without control characters); the location the hostile file name.
printf 'policy p {\n  default deny file;\n}\n' >"$T/old.pol"
printf 'policy p {\n  default deny file;\n  allow file "/srv/q\\"b\\\\\\\\c\303\251*" read;\n}\n' >"$bad"
"$POLC" diff --json "$T/old.pol" "$bad" >"$T/diff.json" 2>"$T/diff.err"
rc=$?
[ $rc = 1 ] || { cat "$T/diff.err"; fail "diff exited $rc, expected 1"; }
check_json "$T/diff.json" "doc['equal'] is False" \
	"any('q\"b\\\\c\u00e9' in d['subject'] for d in doc['differences'])" \
	"any(ok(d['new']['at'].rsplit(':', 2)[0], __import__('os').environb[b'HOSTILE']) for d in doc['differences'])"

# verify --json: the document as a whole (names and reasons are escaped).
# Its probe children run under the policy's filter, where the ASan runtime
# cannot (make asan skips t_verify_seccomp for the same reason).
case "${BUILD:-build}" in *asan*) echo "verify --json not run: sanitizer build" ;; *)
printf 'policy p {\n  default allow syscall;\n  deny syscall ptrace;\n}\n' >"$bad"
"$POLC" verify --json --target seccomp "$bad" >"$T/verify.json" 2>"$T/verify.err"
rc=$?
[ $rc = 0 ] || { cat "$T/verify.err"; fail "verify exited $rc, expected 0"; }
check_json "$T/verify.json" "doc['policy'] == 'p'" "doc['mismatches'] == 0" \
	"doc['targets'][0]['target'] == 'seccomp'"
;;
esac

"$POLC" rules --json >"$T/rules.json" || fail "rules --json failed"
check_json "$T/rules.json" "len(doc) > 0"
echo "ok"
