P=/work/wt/lsm-cost/build-run/polc
cp /work/wt/lsm-cost/build-run/bench/micro /tmp/micro
T="getppid openat stat fork execl"
for r in 1 2; do
for c in none apparmor:aa apparmor:ep bpf:aa bpf:ep; do
  case $c in none) w="";; *) w="$P run --target ${c%%:*} --allow-partial /tmp/lsmc/${c#*:}.pol --";; esac
  echo "R$r $c $($w /tmp/micro -t 0.05 $T | tr '\n' ' ')"
  case $c in bpf*) $P unload >/dev/null 2>&1;; esac
done; done
