#!/usr/bin/env bash
# Issue 14's runs on one node of several GPUs (bench/RESULTS.md, "one node, 8 GPUs"), from the
# repository root on the GPU machine after `bash bench/pack.sh scaling` here:
#
#   bash bench/scaling.sh tdse        the TDSE over MPI ranks, one per GPU (bench/mpi/tdse_scaling.c
#                                     built with the machine's mpicc): weak scaling at 5e8 and 2e9
#                                     points per GPU (1e9 on cards under 120 GB), strong scaling at
#                                     1e9 and 2e9 points, on 1, 2, 4, 8 ranks up to the GPU count;
#                                     then the in-process team (tdse_bench --scaling-only)
#   bash bench/scaling.sh devices     issue 30's device model: every packed GPU test, the MPI test
#                                     of the device rule (tests/mpi/test_device_sets.c) on 2 and 4
#                                     ranks over all GPUs and on 2 ranks over GPUs 0-1, and the
#                                     device C/Fortran programs (test_devices_f, the reliability
#                                     suite's device cases)
#   bash bench/scaling.sh benches     the spread benchmarks alone: linestrength_bench --scaling,
#                                     sturmian_bench --e3e-spread, tdse_bench --scaling-only
#   bash bench/scaling.sh assembly    the GPU tests of the spread paths (sturmian_gpu,
#                                     linestrength_gpu, tdse_gpu), the C and Fortran programs packed
#                                     in .device/extra/progs, sturmian_bench --e3e-spread and
#                                     linestrength_bench --scaling
#
# Each rank count runs in the same call as its one-GPU run. Everything lands in $OUT.
set -u
part=${1:-tdse}
here=.device
export LD_LIBRARY_PATH="$PWD/$here/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export ATOMGPU_REQUIRE_GPU=1 ATOMGPU_BACKEND=cuda
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv | tee "$out/gpu.txt"
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
counts=""
for n in 1 2 4 8; do [ "$n" -le "$gpus" ] && counts="$counts $n"; done
fail=0

case $part in
tdse)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    mpicc -O2 -std=c99 -Wall -Iinclude bench/mpi/tdse_scaling.c -o "$out/tdse_scaling" \
        -L"$here/lib" -latomgpu -lm -Wl,-rpath,"$PWD/$here/lib" || { echo "mpicc failed"; exit 1; }
    mpirun --version | head -1
    # weak: planes per GPU fixed (30517 planes = 5.0e8 points; 122070 = 2.0e9 on cards of 120 GB
    # or more, else 61035 = 1.0e9); strong: the whole grid fixed (61035 = 1.0e9, 122070 = 2.0e9).
    # 20 steps per timed run.
    mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
    if [ "$mib" -ge 120000 ]; then big=122070; else big=61035; fi
    for n in $counts; do
        for spec in "weak_5e8_per_gpu $((30517 * n))" "weak_big_per_gpu $((big * n))" \
                    "strong_1e9 61035" "strong_2e9 122070"; do
            set -- $spec
            # one GPU: strong_2e9 is weak_big_per_gpu's run (or does not fit)
            [ "$n" = 1 ] && [ "$1" = strong_2e9 ] && continue
            mpirun --bind-to none -np "$n" "$out/tdse_scaling" "$2" 20 "$1" 2>> "$out/mpi.err" | tee -a "$out/tdse_mpi.jsonl" \
                || { echo "FAIL mpirun -np $n $1"; fail=1; }
        done
    done
    "$here"/extra/bench/tdse_bench --scaling-only 2> "$out/tdse_bench.err" | tee "$out/tdse_team.jsonl"
    ;;
assembly)
    for name in sturmian_gpu linestrength_gpu tdse_gpu; do
        for t in "$here"/tests/"$name"-*; do
            [ -x "$t" ] || continue
            if "$t" --nocapture >> "$out/tests.log" 2>&1; then echo "PASS $(basename "$t")"; else echo "FAIL $(basename "$t")"; fail=1; fi
        done
    done
    grep -E "GPUs|team" "$out/tests.log" | head
    for p in "$here"/extra/progs/*; do
        [ -x "$p" ] || continue
        if "$p" >> "$out/progs.log" 2>&1; then echo "PASS $(basename "$p")"; else echo "FAIL $(basename "$p")"; fail=1; fi
    done
    "$here"/extra/bench/sturmian_bench "$out" --e3e-spread 2> "$out/sturmian_bench.err" | grep -v '"routine":"note"'
    "$here"/extra/bench/linestrength_bench "$out" --scaling 2> "$out/linestrength_bench.err"
    ;;
devices)
    for t in "$here"/tests/*; do
        [ -x "$t" ] || continue
        if "$t" --nocapture > "$out/$(basename "$t").log" 2>&1; then echo "PASS $(basename "$t")"; else echo "FAIL $(basename "$t")"; fail=1; fi
    done
    grep -h "GPUs .*taken" "$out"/linestrength_gpu-*.log
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    mpicc -O2 -std=c99 -Wall -Iinclude tests/mpi/test_device_sets.c -o "$out/test_device_sets" \
        -L"$here/lib" -latomgpu -lm -Wl,-rpath,"$PWD/$here/lib" || { echo "mpicc failed"; exit 1; }
    for ranks in 2 4; do
        echo "== $ranks ranks over $gpus GPUs"
        mpirun --bind-to none -np "$ranks" "$out/test_device_sets" 2>> "$out/mpi.err" || { echo "FAIL test_device_sets $ranks"; fail=1; }
    done
    echo "== 2 ranks over GPUs 0-1 (CUDA_VISIBLE_DEVICES=0,1)"
    CUDA_VISIBLE_DEVICES=0,1 mpirun --bind-to none -x CUDA_VISIBLE_DEVICES -np 2 "$out/test_device_sets" 2>> "$out/mpi.err" \
        || { echo "FAIL test_device_sets on two GPUs"; fail=1; }
    for p in "$here"/extra/progs/test_*; do
        name=$(basename "$p")
        [ "$name" = test_reliability ] && continue
        if timeout 120 "$p" > "$out/$name.log" 2>&1; then echo "PASS $name"; else echo "FAIL $name"; fail=1; fi
    done
    RELIABILITY_FILTER=device "$here/extra/progs/test_reliability" > "$out/reliability.log" 2>&1 || fail=1
    tail -1 "$out/reliability.log"
    ;;
benches)
    "$here"/extra/bench/linestrength_bench "$out" --scaling 2> "$out/linestrength_bench.err"
    "$here"/extra/bench/sturmian_bench "$out" --e3e-spread 2> "$out/sturmian_bench.err" | grep -v '"routine":"note"'
    "$here"/extra/bench/tdse_bench --scaling-only 2> "$out/tdse_bench.err" | tee "$out/tdse_team.jsonl"
    ;;
esac
echo "device run done: fail=$fail"
exit $fail
