#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after `bash bench/pack.sh FAMILY` here:
#   bash bench/device.sh [rates|linestrength|sturmian|scf|tdse|all|tests]     (default all)
# the family's GPU tests (CUDA vs CPU agreement, the C ABI's hardening; bench/families.sh lists
# them), the C and Fortran test programs (the reliability suite among them) on the CUDA backend,
# the family's benchmark (tdse: `tdse_bench --quick`; all: the rates and line-strength ones), and
# (rates, all) an Nsight Compute pass over one launch of each rates kernel; `tests`: every test
# and program, no benchmark. Everything lands in $OUT.
set -u
family=${1:-all}
here=.device
. bench/families.sh
[ "$family" != scaling ] || { echo "device.sh: the scaling pack runs with bench/scaling.sh"; exit 2; }
tests=$(family_tests "$family") || { echo "device.sh: unknown family '$family'"; exit 2; }
packed=$(cat "$here/family" 2>/dev/null || echo "?")
[ "$packed" = "$family" ] || echo "warning: .device was packed for '$packed', not '$family' (bash bench/pack.sh $family)"
export LD_LIBRARY_PATH="$here/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export ATOMGPU_REQUIRE_GPU=1
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$out/gpu.txt"
fail=0
for name in $tests; do
  found=0
  for t in "$here"/tests/"$name"-*; do
    [ -x "$t" ] || continue
    found=1
    if "$t" --nocapture >> "$out/tests.log" 2>&1; then echo "PASS $(basename "$t")"; else echo "FAIL $(basename "$t")"; fail=1; fi
  done
  [ "$found" = 1 ] || { echo "FAIL $name: not packed"; fail=1; }
done
grep -E "worst|skipped" "$out/tests.log" | head -20
for p in "$here"/extra/progs/*; do
    [ -x "$p" ] || continue
    name=$(basename "$p")
    family_program "$family" "$name" || continue
    # The examples that read an input: the Xe Dirac-Fock sample (packed with the SCF data); the
    # C3v line list needs the model its Rust example writes (run by `make linelist-c3v` there).
    args=()
    case $name in
        scf_atom) args=("$here/extra/data/scf/xe.inp") ;;
        linelist_c3v) echo "skip $name (needs the model file of examples/rust/c3v_model.rs)"; continue ;;
    esac
    if [ "${#args[@]}" -gt 0 ] && [ ! -e "${args[0]}" ]; then echo "skip $name (${args[0]} not packed)"; continue; fi
    if ATOMGPU_BACKEND=cuda "$p" "${args[@]}" >> "$out/progs.log" 2>&1; then echo "PASS $name (cuda)"; else echo "FAIL $name (cuda)"; fail=1; fi
done
# run_bench NAME [ARGS...]: the packed benchmark NAME, its stderr in $OUT/NAME.err.
run_bench() {
    local name=$1
    shift
    [ -x "$here/extra/bench/$name" ] || { echo "FAIL $name: not packed"; fail=1; return; }
    "$here/extra/bench/$name" "$@" 2> "$out/$name.err"
}
case $family in
    tests) ;;
    sturmian) run_bench sturmian_bench "$out" ;;
    scf) run_bench scf_bench | tee "$out/scf_bench.txt" ;;
    tdse) run_bench tdse_bench --quick | tee "$out/tdse_bench.jsonl" ;;
    linestrength) run_bench linestrength_bench "$out" ;;
    rates | all)
        [ "$family" = all ] && run_bench linestrength_bench "$out"
        run_bench rates_bench "$out"
        metrics=gpu__time_duration.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum
        ncu --clock-control none --metrics "$metrics" --section SpeedOfLight "$here"/extra/bench/rates_bench "$out" --profile > "$out/ncu.txt" 2>&1 \
            || echo "ncu failed (see ncu.txt)"
        grep -E "_kernel|dfma|dmul|dadd|duration|Compute \(SM\) Throughput|Memory Throughput" "$out/ncu.txt" | head -60
        ;;
esac
echo "device run done: fail=$fail"
exit $fail
