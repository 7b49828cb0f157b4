#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after `bench/pack.sh` here: the GPU tests
# (CUDA vs CPU agreement), the C and Fortran test programs on the CUDA backend, the benchmark,
# and an Nsight Compute pass over one launch of each rates kernel. Everything lands in $OUT.
set -u
here=.device
export LD_LIBRARY_PATH="$here/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export ATOMGPU_REQUIRE_GPU=1
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$out/gpu.txt"
fail=0
for t in "$here"/tests/rates_gpu-* "$here"/tests/cr_gpu-* "$here"/tests/ffi_rates-*; do
    [ -x "$t" ] || continue
    if "$t" --nocapture >> "$out/tests.log" 2>&1; then echo "PASS $(basename "$t")"; else echo "FAIL $(basename "$t")"; fail=1; fi
done
grep -E "worst|skipped" "$out/tests.log" | head -20
for p in "$here"/extra/progs/*; do
    [ -x "$p" ] || continue
    if ATOMGPU_BACKEND=cuda "$p" >> "$out/progs.log" 2>&1; then echo "PASS $(basename "$p") (cuda)"; else echo "FAIL $(basename "$p") (cuda)"; fail=1; fi
done
"$here"/extra/bench/rates_bench "$out" 2> "$out/bench.err"
metrics=gpu__time_duration.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum
ncu --clock-control none --metrics "$metrics" --section SpeedOfLight "$here"/extra/bench/rates_bench "$out" --profile > "$out/ncu.txt" 2>&1 \
    || echo "ncu failed (see ncu.txt)"
grep -E "_kernel|dfma|dmul|dadd|duration|Compute \(SM\) Throughput|Memory Throughput" "$out/ncu.txt" | head -60
echo "device run done: fail=$fail"
exit $fail
