#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after `bench/pack.sh` here:
#   bash bench/device.sh [rates|linestrength|sturmian|all|tests]     (default all)
# the family's GPU tests (CUDA vs CPU agreement, the C ABI's hardening), the C and Fortran test
# programs (the reliability suite among them) on the CUDA backend, the family's benchmark, and
# (rates) an Nsight Compute pass over one launch of each rates kernel; `tests`: every test and
# program, no benchmark. Everything lands in $OUT.
set -u
family=${1:-all}
here=.device
export LD_LIBRARY_PATH="$here/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export ATOMGPU_REQUIRE_GPU=1
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$out/gpu.txt"
fail=0
case $family in
    rates) tests="rates_gpu cr_gpu ffi_rates ffi_hardening" ;;
    linestrength) tests="linestrength_gpu linestrength ffi_linestrength ffi_hardening" ;;
    sturmian) tests="sturmian_gpu sturmian ffi_sturmian ffi_hardening" ;;
    *) tests="rates_gpu cr_gpu ffi_rates linestrength_gpu linestrength ffi_linestrength ffi_hardening" ;;
esac
for name in $tests; do
  for t in "$here"/tests/"$name"-*; do
    [ -x "$t" ] || continue
    if "$t" --nocapture >> "$out/tests.log" 2>&1; then echo "PASS $(basename "$t")"; else echo "FAIL $(basename "$t")"; fail=1; fi
  done
done
grep -E "worst|skipped" "$out/tests.log" | head -20
for p in "$here"/extra/progs/*; do
    [ -x "$p" ] || continue
    case "$family:$(basename "$p")" in all:* | tests:* | *:*reliability* | linestrength:*linestrength* | sturmian:*sturmian* | rates:*rates* | rates:*cr* | rates:*bad_input*) ;; *) continue ;; esac
    if ATOMGPU_BACKEND=cuda "$p" >> "$out/progs.log" 2>&1; then echo "PASS $(basename "$p") (cuda)"; else echo "FAIL $(basename "$p") (cuda)"; fail=1; fi
done
[ "$family" = tests ] && { echo "device run done: fail=$fail"; exit $fail; }
if [ "$family" = sturmian ]; then
    "$here"/extra/bench/sturmian_bench "$out" 2> "$out/sturmian_bench.err"
    echo "device run done: fail=$fail"; exit $fail
fi
if [ "$family" != rates ]; then
    "$here"/extra/bench/linestrength_bench "$out" 2> "$out/linestrength_bench.err"
fi
[ "$family" = linestrength ] && { echo "device run done: fail=$fail"; exit $fail; }
"$here"/extra/bench/rates_bench "$out" 2> "$out/bench.err"
metrics=gpu__time_duration.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum
ncu --clock-control none --metrics "$metrics" --section SpeedOfLight "$here"/extra/bench/rates_bench "$out" --profile > "$out/ncu.txt" 2>&1 \
    || echo "ncu failed (see ncu.txt)"
grep -E "_kernel|dfma|dmul|dadd|duration|Compute \(SM\) Throughput|Memory Throughput" "$out/ncu.txt" | head -60
echo "device run done: fail=$fail"
exit $fail
