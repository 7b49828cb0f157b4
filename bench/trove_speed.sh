#!/usr/bin/env bash
# TROVE's intensity step against the same step handed to atomgpu, on one machine (issue 29).
#
#   bash bench/trove_speed.sh [OUT]
#
# Needs .device/ as bench/pack.sh linestrength leaves it plus .device/trove/: j-trove-ag.x.gz (real
# TROVE, github Trovemaster/TROVE 82a4c88, built with fortran/trove/atomgpu_trove.f90 and the glue
# lines README "Using atomgpu from TROVE" lists; OpenBLAS, libgfortran and libgomp linked in
# statically, libatomgpu.so and libquadmath from .device/lib) and inputs/ (TROVE's step1, step2,
# step3_J<J> and step4 inputs of the case; INPUTS=folder picks another case's inputs). Runs
# TROVE's steps 1-3 from scratch, then its
# intensity step three times on the same eigenvectors: TROVE's own loop (ATOMGPU_TROVE unset),
# atomgpu on the GPU and atomgpu on the CPU (ATOMGPU_TROVE=1, ATOMGPU_BACKEND=cuda / cpu), all with
# OMP_NUM_THREADS = every core. Prints each step's wall time, TROVE's timers ("Intensity
# calculations": the whole step from the eigenvector files to the written files; "Intensity
# loop" inside it), atomgpu's ("atomgpu intensity": the same whole step, handle set-up from
# TROVE's files included; "TROVE line list written in": the list itself), and how the three
# .states/.trans pairs compare (cmp, and the number of .trans lines that differ).
set -u
root=$(pwd)
dev=$root/.device
out=$(mkdir -p "${1:-$root/trove-speed-out}" && cd "${1:-$root/trove-speed-out}" && pwd)
work=${WORK:-/tmp/trove-speed}
rm -rf "$work" && mkdir -p "$work" && cd "$work"
inputs=${INPUTS:-$dev/trove/inputs}
gunzip -c "$dev/trove/j-trove-ag.x.gz" > trove.x && chmod +x trove.x
export LD_LIBRARY_PATH=$dev/lib:${LD_LIBRARY_PATH:-}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
export OMP_STACKSIZE=${OMP_STACKSIZE:-256M}
ulimit -s unlimited 2>/dev/null || true
report() { echo "$*" | tee -a "$out/summary.txt"; }
report "inputs $inputs; host $(hostname), $(nproc) cores, OMP_NUM_THREADS=$OMP_NUM_THREADS; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"

step() { # name input output [env...]
    local name=$1 input=$2 output=$3
    shift 3
    local t0 t1
    t0=$(date +%s.%N)
    env "$@" ./trove.x < "$input" > "$output" 2>&1
    local rc=$?
    t1=$(date +%s.%N)
    report "$(awk -v n="$name" -v rc=$rc -v a="$t0" -v b="$t1" 'BEGIN{printf "%-18s rc=%d wall %8.2f s", n, rc, b - a}')"
    grep -E "^ *(Intensity calculations|Intensity loop|atomgpu intensity) " "$output" | tail -3 | sed 's/^/    timer: /' | tee -a "$out/summary.txt"
    grep "atomgpu: TROVE line list" "$output" | sed 's/^/    /' | tee -a "$out/summary.txt"
    [ $rc -eq 0 ] || { cp "$output" "$out/"; return 1; }
}
step step1 "$inputs/step1.inp" step1.out || exit 1
step step2 "$inputs/step2.inp" step2.out || exit 1
for input in "$inputs"/step3_J*.inp; do
    step "$(basename "$input" .inp)" "$input" "$(basename "$input" .inp).out" || exit 1
done
stem=$(awk 'tolower($1) == "linelist" {print $2}' "$inputs/step4.inp")
for run in trove gpu cpu; do
    rm -f "$stem"_*.states* "$stem"_*.trans*
    case $run in
        trove) step step4_trove "$inputs/step4.inp" step4_trove.out ATOMGPU_TROVE=0 ;;
        gpu) step step4_atomgpu_gpu "$inputs/step4.inp" step4_gpu.out ATOMGPU_TROVE=1 ATOMGPU_BACKEND=cuda ;;
        cpu) step step4_atomgpu_cpu "$inputs/step4.inp" step4_cpu.out ATOMGPU_TROVE=1 ATOMGPU_BACKEND=cpu ;;
    esac
    mkdir -p "$run" && mv "$stem"_*.states "$stem"_*.trans "$run/" 2>/dev/null
done
for run in gpu cpu; do
    for f in trove/*; do
        other=$run/$(basename "$f")
        if cmp -s "$f" "$other"; then
            report "$run $(basename "$f"): identical to TROVE's ($(wc -l < "$f") lines)"
        else
            report "$run $(basename "$f"): $(diff "$f" "$other" | grep -c '^<') of $(wc -l < "$f") lines differ from TROVE's"
            diff "$f" "$other" | head -12 >> "$out/summary.txt"
        fi
    done
done
