#!/usr/bin/env bash
# All of atomgpu's tests (`make test`, called by .ci/run). Works on a fresh Debian machine that
# has Rust, gcc, python3 with pip and apt: it installs what is missing (gfortran, pkg-config;
# NVRTC from its PyPI wheel into .tools/, used only to compile every kernel, no GPU needed),
# then runs, as separate stages:
#
#   cargo fmt --check and cargo clippy --all-targets -D warnings (the style holds), cargo build
#   --release, cargo test --release (with the header-is-current check, the FFI guard and
#   import-direction scans and the NVRTC compile of kernels/*.cu), the header compiled alone as
#   C and C++, the C test programs (tests/c), the reliability suite (every bad-input case of the
#   C ABI in a forked child, so a crash is counted, not fatal; threads on shared handles), the C
#   test programs again under valgrind memcheck (no error, no definite leak), the C examples
#   (compiled; the helium one run), the Fortran test programs (tests/fortran), the Fortran
#   examples (compiled; the line-list and helium ones run), the MPI stage (OpenMPI installed if
#   missing: the TDSE domain split at 2 and 3 ranks, the jellium example on 1 and 2 ranks, the
#   scaling benchmark on 2), the
#   exported-symbol check, `make
#   install` into a staging folder with a C and a Fortran program built through pkg-config (and
#   CMake's find_package when cmake is there), and the cluster recipes: the EasyBuild easyconfig run
#   by EasyBuild 5 (PyPI) with Lmod (installed if missing) and `module load atomgpu`, the Spack
#   package run through its harness (tests/packaging/spack_harness.py; Spack itself is not installed).
#
# Every stage runs even when an earlier one failed; the last line is `N passed, M failed`, and
# the exit status is non-zero when any stage failed. Safe to run again (idempotent).
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ATOMGPU_ROOT"

# NVRTC for the kernel compile check: the nvidia-cuda-nvrtc wheel that carries
# nvidia/cu13/lib/libnvrtc.so.13. 13.0.x matches the CUDA 13.0 driver (580) of the device
# machine, so PTX it emits also loads there.
NVRTC_WHEEL_VERSION=13.0.88
NVRTC_DIR="$ATOMGPU_ROOT/.tools/nvrtc"
WHEEL_DIR="$ATOMGPU_ROOT/.tools/wheels"

LIB="$ATOMGPU_LIBDIR"
BUILD="$ATOMGPU_ROOT/build/tests"
CFLAGS=(-std=c99 -Wall -Wextra -Werror)
# The Fortran module and tests are standard Fortran 2018 (iso_c_binding, error stop with a
# message); -fcheck=all adds run-time bounds and pointer checks.
FFLAGS=(-std=f2018 -Wall -fcheck=all -g)

export LC_ALL=C
export LD_LIBRARY_PATH="$NVRTC_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

passed=0
failed=0
failed_names=()

# run_stage NAME FUNCTION: runs FUNCTION in a subshell with errexit on, records the result.
run_stage() {
    local name=$1 fn=$2 start rc
    start=$(date +%s)
    echo
    echo "=== stage $((passed + failed + 1)): $name"
    set +e
    (
        set -euo pipefail
        "$fn"
    )
    rc=$?
    set -e
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        echo "--- PASS: $name ($(($(date +%s) - start)) s)"
    else
        failed=$((failed + 1))
        failed_names+=("$name")
        echo "--- FAIL: $name (exit $rc, $(($(date +%s) - start)) s)"
    fi
}

# ---------------------------------------------------------------------------------------------
stage_tools() {
    ensure_command make make
    ensure_command valgrind valgrind
    ensure_command gfortran gfortran
    ensure_command pkg-config pkg-config
    ensure_command c++ g++
    ensure_command nm binutils
    gfortran --version | sed -n 1p
    pkg-config --version
}

stage_nvrtc() {
    local stamp="$NVRTC_DIR/VERSION"
    if [ -f "$NVRTC_DIR/libnvrtc.so.13" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$NVRTC_WHEEL_VERSION" ]; then
        echo "NVRTC $NVRTC_WHEEL_VERSION already in .tools/nvrtc"
        return 0
    fi
    echo "fetching NVRTC $NVRTC_WHEEL_VERSION (PyPI wheel nvidia-cuda-nvrtc) into .tools/"
    mkdir -p "$WHEEL_DIR"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        -d "$WHEEL_DIR" "nvidia-cuda-nvrtc==$NVRTC_WHEEL_VERSION"
    local wheel
    wheel=$(find "$WHEEL_DIR" -maxdepth 1 -name "nvidia_cuda_nvrtc-$NVRTC_WHEEL_VERSION-*.whl" -print -quit)
    [ -n "$wheel" ] || { echo "error: the wheel was not downloaded" >&2; return 1; }
    rm -rf "$NVRTC_DIR"
    mkdir -p "$NVRTC_DIR"
    # Unzip nvidia/cu13/lib/ flat into .tools/nvrtc (the .alt builds are not needed).
    python3 - "$wheel" "$NVRTC_DIR" <<'PY'
import os, sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist()
             if n.startswith("nvidia/cu13/lib/") and not n.endswith("/") and ".alt." not in n]
    for n in names:
        target = os.path.join(dest, os.path.basename(n))
        with z.open(n) as src, open(target, "wb") as out:
            out.write(src.read())
        print("  ", os.path.basename(n))
PY
    [ -f "$NVRTC_DIR/libnvrtc.so.13" ] || { echo "error: the wheel holds no nvidia/cu13/lib/libnvrtc.so.13" >&2; return 1; }
    echo "$NVRTC_WHEEL_VERSION" > "$stamp"
    rm -f "$wheel"    # 90 MB; only the two libraries are needed
}

stage_style() {
    cargo fmt --check
    echo "cargo fmt --check: the tree is formatted (rustfmt.toml)"
    cargo clippy --all-targets --release -- -D warnings
    echo "cargo clippy --all-targets: no warnings"
}

stage_cargo_build() {
    cargo build --release
    ls -l "$LIB/libatomgpu.so" "$LIB/libatomgpu.a"
}

stage_cargo_test() {
    # ATOMGPU_KERNEL_CHECK=1: the kernel compile test fails, instead of skipping, without NVRTC.
    ATOMGPU_KERNEL_CHECK=1 cargo test --release --no-fail-fast
}

stage_header_alone() {
    cc "${CFLAGS[@]}" -Wpedantic -fsyntax-only -x c include/atomgpu.h
    echo "include/atomgpu.h compiles alone as C99"
    c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ include/atomgpu.h
    echo "include/atomgpu.h compiles alone as C++11"
}

# compile_c SOURCE OUTPUT: one C program against the built library (rpath to target/release).
compile_c() {
    cc "${CFLAGS[@]}" -Iinclude "$1" -o "$2" -L"$LIB" -latomgpu -Wl,-rpath,"$LIB" -lm -pthread
}

# The reliability suite is its own stage (stage_reliability), not one of the C test programs.
RELIABILITY=tests/c/test_reliability.c

# run_program SOURCE EXE: runs a test program from the repository root; it must exit 0.
run_program() {
    local rc=0
    "$2" || rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "ok: $1"
    else
        echo "FAIL: $1 exited with status $rc"
    fi
    return "$rc"
}

stage_c_tests() {
    local out="$BUILD/c" src name bad=0 n=0
    mkdir -p "$out"
    shopt -s nullglob
    for src in tests/c/*.c; do
        [ "$src" != "$RELIABILITY" ] || continue
        n=$((n + 1))
        name=$(basename "$src" .c)
        echo "-- $src"
        if ! compile_c "$src" "$out/$name"; then
            echo "FAIL: $src does not compile"
            bad=$((bad + 1))
        else
            run_program "$src" "$out/$name" || bad=$((bad + 1))
        fi
    done
    [ "$n" -gt 0 ] || { echo "error: no C test programs (tests/c/*.c)"; return 1; }
    echo "$((n - bad)) of $n C test programs passed"
    [ "$bad" -eq 0 ]
}

stage_reliability() {
    local out="$BUILD/reliability"
    mkdir -p "$out"
    compile_c "$RELIABILITY" "$out/test_reliability"
    "$out/test_reliability"
}

# valgrind_wait PID NAME: waits for the valgrind run of test program NAME and reports it; non-zero
# when valgrind found a memory error or a definitely lost block (or the program failed).
valgrind_wait() {
    if wait "$1"; then
        echo "ok: $2 (valgrind: no errors, no definite leaks)"
    else
        echo "FAIL: $2 under valgrind:"
        tail -30 "$BUILD/c/$2.valgrind.log"
        return 1
    fi
}

# Every C test program (built by stage_c_tests) under valgrind memcheck, two at a time. (The
# reliability suite forks hundreds of children and is left out: crashes are what it counts.)
stage_valgrind() {
    local out="$BUILD/c" name bad=0 n=0 pids=() names=()
    shopt -s nullglob
    for src in tests/c/*.c; do
        [ "$src" != "$RELIABILITY" ] || continue
        name=$(basename "$src" .c)
        [ -x "$out/$name" ] || { echo "FAIL: $out/$name not built (stage C test programs)"; bad=$((bad + 1)); continue; }
        n=$((n + 1))
        valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
            --show-leak-kinds=definite "$out/$name" > "$out/$name.valgrind.log" 2>&1 &
        pids+=("$!")
        names+=("$name")
        if [ "${#pids[@]}" -ge 2 ]; then
            valgrind_wait "${pids[0]}" "${names[0]}" || bad=$((bad + 1))
            pids=("${pids[@]:1}")
            names=("${names[@]:1}")
        fi
    done
    local i
    for i in "${!pids[@]}"; do
        valgrind_wait "${pids[$i]}" "${names[$i]}" || bad=$((bad + 1))
    done
    echo "$((n - bad)) of $n C test programs clean under valgrind memcheck"
    [ "$bad" -eq 0 ]
}

# check_helium_table FILE: the table of the sturmian_helium examples has its three rows and the
# N = 14 row of the Rust example (examples/rust/sturmian_helium.rs) to 1e-7 hartree.
check_helium_table() {
    [ -s "$1" ] || { echo "FAIL: $1 not written"; return 1; }
    awk '!/^#/ && NF == 5 { rows++ }
         $1 == 14 { d0 = $2 + 2.87902325; d1 = $3 + 2.90050857; d2 = $4 + 2.90275502
                    ok = (d0 * d0 < 1e-14 && d1 * d1 < 1e-14 && d2 * d2 < 1e-14) }
         END { exit !(rows == 3 && ok) }' "$1" || { echo "FAIL: $1 differs from the expected table:"; cat "$1"; return 1; }
    echo "ok: $1 holds the expected helium table"
}

stage_c_examples() {
    local out="$BUILD/examples-c" src bad=0 n=0
    mkdir -p "$out"
    shopt -s nullglob
    for src in examples/c/*.c; do
        n=$((n + 1))
        if compile_c "$src" "$out/$(basename "$src" .c)"; then
            echo "ok: $src compiles"
        else
            echo "FAIL: $src does not compile"
            bad=$((bad + 1))
        fi
    done
    [ "$n" -gt 0 ] || echo "no C examples (examples/c/*.c) to compile"
    # The helium example is quick (a few seconds): run it too, into a scratch folder.
    # The degenerate-species example (a few seconds): on the model the Rust example writes (built by
    # the cargo test stage); it checks its counts and the split-by-hand line strengths itself.
    if [ -x "$out/linelist_c3v" ]; then
        if [ -x "$LIB/examples/c3v_model" ] && "$LIB/examples/c3v_model" "$out/c3v_model.bin"; then
            "$out/linelist_c3v" "$out/c3v_model.bin" "$out/linelist-c3v" \
                || { echo "FAIL: linelist_c3v exited non-zero"; bad=$((bad + 1)); }
            [ -s "$out/linelist-c3v/c3v.trans" ] || { echo "FAIL: no c3v.trans written"; bad=$((bad + 1)); }
        else
            echo "FAIL: the C3v model (examples/rust/c3v_model.rs) was not written"
            bad=$((bad + 1))
        fi
    fi
    if [ -x "$out/sturmian_helium" ]; then
        "$out/sturmian_helium" "$out/sturmian_helium.dat" || { echo "FAIL: sturmian_helium (C) exited non-zero"; bad=$((bad + 1)); }
        check_helium_table "$out/sturmian_helium.dat" || bad=$((bad + 1))
    fi
    [ "$bad" -eq 0 ]
}

stage_fortran_tests() {
    local out="$BUILD/fortran" src name bad=0 n=0
    rm -rf "$out"
    mkdir -p "$out"
    gfortran "${FFLAGS[@]}" -J "$out" -c fortran/atomgpu.f90 -o "$out/atomgpu.o"
    echo "fortran/atomgpu.f90 compiles with ${FFLAGS[*]}"
    # The test programs' shared helpers (module atomgpu_test_checks); tests/fortran/support/ is
    # not matched by the tests/fortran/*.f90 glob below.
    gfortran "${FFLAGS[@]}" -I "$out" -J "$out" -c tests/fortran/support/checks.f90 -o "$out/checks.o"
    echo "tests/fortran/support/checks.f90 compiles with ${FFLAGS[*]}"
    # The TROVE bridge and its fixture dump (README "Using atomgpu from TROVE"), with the flags
    # TROVE's makefile builds them with (-std=gnu: the dump writes little-endian streams).
    for src in fortran/trove/atomgpu_trove.f90 fortran/trove/atomgpu_trove_dump.f90; do
        if gfortran -std=gnu -Wall -Werror -I "$out" -J "$out" -c "$src" -o "$out/$(basename "$src" .f90).o"; then
            echo "$src compiles with -std=gnu -Wall -Werror"
        else
            echo "FAIL: $src does not compile"
            bad=$((bad + 1))
        fi
    done
    shopt -s nullglob
    for src in tests/fortran/*.f90; do
        n=$((n + 1))
        name=$(basename "$src" .f90)
        echo "-- $src"
        if ! gfortran "${FFLAGS[@]}" -I "$out" -J "$out" "$out/atomgpu.o" "$out/checks.o" "$src" -o "$out/$name" \
            -L"$LIB" -latomgpu -Wl,-rpath,"$LIB"; then
            echo "FAIL: $src does not compile"
            bad=$((bad + 1))
        else
            run_program "$src" "$out/$name" || bad=$((bad + 1))
        fi
    done
    [ "$n" -gt 0 ] || { echo "error: no Fortran test programs (tests/fortran/*.f90)"; return 1; }
    echo "$((n - bad)) of $n Fortran test programs passed"
    [ "$bad" -eq 0 ]
}

stage_fortran_examples() {
    local out="$BUILD/examples-fortran" src bad=0 n=0
    rm -rf "$out"
    mkdir -p "$out"
    gfortran "${FFLAGS[@]}" -J "$out" -c fortran/atomgpu.f90 -o "$out/atomgpu.o"
    shopt -s nullglob
    for src in examples/fortran/*.f90; do
        n=$((n + 1))
        if gfortran "${FFLAGS[@]}" -I "$out" -J "$out" "$out/atomgpu.o" "$src" -o "$out/$(basename "$src" .f90)" \
            -L"$LIB" -latomgpu -Wl,-rpath,"$LIB"; then
            echo "ok: $src compiles"
        else
            echo "FAIL: $src does not compile"
            bad=$((bad + 1))
        fi
    done
    # The line-list example is quick (about a second): run it too, into a scratch folder.
    if [ -x "$out/linelist_synthetic" ]; then
        "$out/linelist_synthetic" "$out/linelist" || { echo "FAIL: linelist_synthetic exited non-zero"; bad=$((bad + 1)); }
        [ -s "$out/linelist/linelist.trans" ] || { echo "FAIL: no linelist.trans written"; bad=$((bad + 1)); }
    fi
    # The degenerate-species example (a few seconds): on the model the Rust example writes (built by
    # the cargo test stage); it checks its counts and the split-by-hand line strengths itself.
    if [ -x "$out/linelist_c3v" ]; then
        if [ -x "$LIB/examples/c3v_model" ] && "$LIB/examples/c3v_model" "$out/c3v_model.bin"; then
            "$out/linelist_c3v" "$out/c3v_model.bin" "$out/linelist-c3v" \
                || { echo "FAIL: linelist_c3v exited non-zero"; bad=$((bad + 1)); }
            [ -s "$out/linelist-c3v/c3v.trans" ] || { echo "FAIL: no c3v.trans written"; bad=$((bad + 1)); }
        else
            echo "FAIL: the C3v model (examples/rust/c3v_model.rs) was not written"
            bad=$((bad + 1))
        fi
    fi
    if [ -x "$out/sturmian_helium" ]; then
        "$out/sturmian_helium" "$out/sturmian_helium.dat" || { echo "FAIL: sturmian_helium (Fortran) exited non-zero"; bad=$((bad + 1)); }
        check_helium_table "$out/sturmian_helium.dat" || bad=$((bad + 1))
    fi
    if [ -x "$out/scf_atom" ]; then
        check_scf_atom "$out/scf_atom" "$out/scf" || bad=$((bad + 1))
    fi
    [ "$bad" -eq 0 ]
}

# scf_total PROGRAM INPUT: the total energy scf_atom prints for INPUT (empty on failure).
scf_total() {
    "$1" "$2" | awk '/total energy/ { print $3 }'
}

# check_scf_atom PROGRAM SCRATCH: the quick sample inputs (He, Be, Kr; Ar and Xe take minutes on
# two cores) against independent limits, and bad inputs refused with a message.
#  He, Be: Dirac-Fock, point nucleus, c = 137.03599976: the numerical DF limits of
#          tests/reference/df_numerical.py (-2.8618133422, -14.5758922664): the basis energy lies
#          above, within 2e-6 hartree.
#  Kr:     Hartree-Fock: the numerical HF limit -2752.054977 (Koga et al., Phys. Rev. A 47, 4510
#          (1993)): above, within 1e-3.
check_scf_atom() {
    local program=$1 scratch=$2 e ok=0
    mkdir -p "$scratch"
    for spec in "he -2.8618133422 2e-6" "be -14.5758922664 2e-6" "kr -2752.054977 1e-3"; do
        set -- $spec
        e=$(scf_total "$program" "examples/data/scf/$1.inp")
        if awk -v e="$e" -v ref="$2" -v tol="$3" 'BEGIN { exit !(e != "" && e - ref >= 0 && e - ref < tol) }'; then
            echo "ok: scf_atom $1.inp: E = $e hartree (limit $2, within $3 above)"
        else
            echo "FAIL: scf_atom $1.inp: E = '$e', expected within $3 above $2"
            ok=1
        fi
    done
    # Bad inputs (a missing group, a negative exponent, nbs beyond 400, an occupation that does not
    # fit, an SCF that does not converge): each must exit non-zero with the phrase given.
    local head=" \$contrl jobtype='energy' \$end"$'\n'" \$nuc znuc=4.0 \$end"
    local wtbs=" \$bas nsym=1 bastype='wtbs' \$end"
    printf '%s\n' "missing" "$head" "$wtbs" > "$scratch/missing.inp"
    printf '%s\n' "negative" "$head" " \$bas nsym=1 bastype='rdin' \$end" 2 1.0 -3.0 " \$econfig nclose=1 \$end" \
        > "$scratch/negative.inp"
    printf '%s\n' "nbs" "$head" "$wtbs" " \$wtbs wtbspara=0.1,2.0,1.0,0.0 nbs=500 \$end" " \$econfig nclose=2 \$end" \
        > "$scratch/nbs.inp"
    printf '%s\n' "occupation" "$head" "$wtbs" " \$wtbs wtbspara=0.1,2.0,1.0,0.0 nbs=4 \$end" " \$econfig nclose=5 \$end" \
        > "$scratch/occupation.inp"
    printf '%s\n' "converge" "$head" "$wtbs" " \$wtbs wtbspara=0.05,2.0,1.0,0.0 nbs=16 \$end" \
        " \$econfig nclose=2 maxitr=2 \$end" > "$scratch/converge.inp"
    local case text
    for case in "missing:\$wtbs group is missing" "negative:exponents\`[1]" "nbs:nbs" "occupation:\`closed\`" "converge:NOT CONVERGED"; do
        text=${case#*:}
        if "$program" "$scratch/${case%%:*}.inp" > "$scratch/${case%%:*}.out" 2>&1; then
            echo "FAIL: scf_atom ${case%%:*}.inp exited 0"; ok=1
        elif ! grep -qF "$text" "$scratch/${case%%:*}.out"; then
            echo "FAIL: scf_atom ${case%%:*}.inp: no \"$text\" in:"; cat "$scratch/${case%%:*}.out"; ok=1
        else
            echo "ok: scf_atom ${case%%:*}.inp refused: $(grep -F "$text" "$scratch/${case%%:*}.out" | head -1)"
        fi
    done
    return "$ok"
}

# The domain split over MPI ranks (OpenMPI from the system packages, installed if missing): the
# TDSE test at 2 and 3 ranks against one rank owning the whole grid (tests/mpi), and the
# jellium example run on 1 and 2 ranks, whose tables must be identical (examples/mpi).
stage_mpi() {
    ensure_command mpicc libopenmpi-dev
    ensure_command mpirun openmpi-bin
    local out="$BUILD/mpi" src name bad=0
    mkdir -p "$out"
    # Runs as root in containers; more ranks than cores on a 2-core machine.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    shopt -s nullglob
    for src in tests/mpi/*.c examples/mpi/*.c bench/mpi/*.c; do
        name=$(basename "$src" .c)
        mpicc "${CFLAGS[@]}" -Iinclude "$src" -o "$out/$name" -L"$LIB" -latomgpu -Wl,-rpath,"$LIB" -lm \
            || { echo "FAIL: $src does not compile with mpicc"; bad=$((bad + 1)); }
    done
    local ranks
    for ranks in 2 3; do
        if mpirun -np "$ranks" "$out/test_tdse_mpi"; then
            echo "ok: tests/mpi/test_tdse_mpi.c on $ranks ranks"
        else
            echo "FAIL: tests/mpi/test_tdse_mpi.c on $ranks ranks"; bad=$((bad + 1))
        fi
    done
    for ranks in 1 2; do
        if mpirun -np "$ranks" "$out/test_device_sets"; then
            echo "ok: tests/mpi/test_device_sets.c on $ranks rank(s)"
        else
            echo "FAIL: tests/mpi/test_device_sets.c on $ranks rank(s)"; bad=$((bad + 1))
        fi
    done
    for ranks in 1 2; do
        mpirun -np "$ranks" "$out/tdse_jellium" "$out/tdse_jellium_$ranks.dat" \
            || { echo "FAIL: examples/mpi/tdse_jellium.c on $ranks rank(s)"; bad=$((bad + 1)); }
    done
    # The scaling benchmark (bench/scaling.sh runs it on GPUs): 2 ranks on a 12-plane grid, 1 step.
    if mpirun -np 2 "$out/tdse_scaling" 12 1 smoke; then
        echo "ok: bench/mpi/tdse_scaling.c runs on 2 ranks"
    else
        echo "FAIL: bench/mpi/tdse_scaling.c on 2 ranks"; bad=$((bad + 1))
    fi
    if cmp -s <(grep -v '^#' "$out/tdse_jellium_1.dat") <(grep -v '^#' "$out/tdse_jellium_2.dat"); then
        echo "ok: the jellium example gives the same table on 1 and 2 ranks:"
        cat "$out/tdse_jellium_2.dat"
    else
        echo "FAIL: the jellium example's tables differ between 1 and 2 ranks"; bad=$((bad + 1))
    fi
    [ "$bad" -eq 0 ]
}

# words TEXT: a newline-separated list on one line.
words() { tr '\n' ' ' <<<"$1"; }

stage_symbols() {
    local so="$LIB/libatomgpu.so" tmp
    [ -f "$so" ] || { echo "error: $so not built"; return 1; }
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064  # expand now: the subshell's tmp
    trap "rm -rf '$tmp'" EXIT
    nm -D --defined-only "$so" | awk '{print $NF}' | sed 's/@.*//' | sort -u > "$tmp/exported"
    # Functions the header declares (comments gone through the preprocessor). A missing or
    # broken header leaves the list empty, which fails below; the Fortran names are still checked.
    : > "$tmp/header"
    if [ -f include/atomgpu.h ]; then
        cc -E -P -x c -Iinclude include/atomgpu.h > "$tmp/header.i" || true
        { grep -oE '\batomgpu_[A-Za-z0-9_]+[[:space:]]*\(' "$tmp/header.i" || true; } \
            | sed -E 's/[[:space:]]*\($//' | sort -u > "$tmp/header"
    fi
    # bind(C, name="...") names of the Fortran module (continuation lines joined, comments gone).
    python3 - fortran/*.f90 > "$tmp/fortran" <<'PY'
import re, sys
text = "\n".join(open(f).read() for f in sys.argv[1:])
lines = []
for line in text.splitlines():
    out, quote = [], None
    for ch in line:              # drop a '!' comment that is not inside a string
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "!":
            break
        out.append(ch)
    lines.append("".join(out))
joined = re.sub(r"&\s*\n\s*&?", "", "\n".join(lines))
names = re.findall(r"""bind\s*\(\s*c\s*,\s*name\s*=\s*["']([^"']+)["']""", joined, re.I)
print("\n".join(sorted(set(names))))
PY
    local nh nf missing_h missing_f unbound
    nh=$(grep -c . "$tmp/header" || true)
    nf=$(grep -c . "$tmp/fortran" || true)
    missing_h=$(comm -23 "$tmp/header" "$tmp/exported")
    missing_f=$(comm -23 "$tmp/fortran" "$tmp/exported")
    echo "$(grep -c '^atomgpu_' "$tmp/exported" || true) atomgpu_ symbols exported; header declares $nh functions; Fortran binds $nf names"
    unbound=$(comm -23 "$tmp/header" "$tmp/fortran")
    if [ -n "$unbound" ]; then
        echo "note: header functions without a bind(C) interface in fortran/*.f90: $(words "$unbound")"
    fi
    local ok=0
    [ "$nh" -gt 0 ] || { echo "error: include/atomgpu.h missing, broken or without any atomgpu_ function (make header)"; ok=1; }
    [ "$nf" -gt 0 ] || { echo "error: fortran/*.f90 have no bind(C, name=...) interface"; ok=1; }
    if [ -n "$missing_h" ]; then
        echo "error: declared in include/atomgpu.h but not exported by libatomgpu.so: $(words "$missing_h")"
        ok=1
    fi
    if [ -n "$missing_f" ]; then
        echo "error: bound in fortran/*.f90 but not exported by libatomgpu.so: $(words "$missing_f")"
        ok=1
    fi
    return "$ok"
}

# smoke_programs OUT PREFIX: the install smoke programs tests/packaging/smoke.c and smoke.f90, built
# into the folder OUT against the atomgpu installed in the folder PREFIX, found through pkg-config
# alone (the caller sets PKG_CONFIG_PATH, and PKG_CONFIG_SYSROOT_DIR for a DESTDIR install): C with
# its --cflags --libs, Fortran from the module source in its fortrandir with its --libs. Both run
# (the caller's LD_LIBRARY_PATH must lead to PREFIX/lib) and print the version of the library they
# loaded; the C one must have loaded PREFIX/lib/libatomgpu.so.
smoke_programs() {
    local out=$1 prefix=$2 cflags libs fortrandir loaded
    cflags=$(pkg-config --cflags atomgpu)
    libs=$(pkg-config --libs atomgpu)
    fortrandir=$(pkg-config --variable=fortrandir atomgpu)
    echo "pkg-config atomgpu $(pkg-config --modversion atomgpu): $cflags $libs; fortrandir $fortrandir"
    # shellcheck disable=SC2086  # pkg-config output is a list of flags
    cc "${CFLAGS[@]}" tests/packaging/smoke.c $cflags $libs -o "$out/smoke"
    "$out/smoke"
    loaded=$(ldd "$out/smoke")
    case $loaded in
        *"$prefix/lib/libatomgpu.so"*) ;;
        *) echo "error: the C smoke program did not load $prefix/lib/libatomgpu.so:"; echo "$loaded"; return 1 ;;
    esac
    # The DESIGN's Fortran line: gfortran atomgpu.f90 prog.f90 -latomgpu (the module source compiled
    # by the caller's compiler; -J keeps the .mod files out of the source tree).
    # shellcheck disable=SC2086
    gfortran "${FFLAGS[@]}" -J "$out" "$fortrandir/atomgpu.f90" tests/packaging/smoke.f90 $libs -o "$out/smoke_f"
    "$out/smoke_f"
}

stage_install() {
    local tmp prefix root version
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064  # expand now: the subshell's tmp
    trap "rm -rf '$tmp'" EXIT
    prefix=/opt/atomgpu
    root="$tmp/stage$prefix"
    make --no-print-directory install DESTDIR="$tmp/stage" PREFIX="$prefix"
    local f
    for f in lib/libatomgpu.so lib/libatomgpu.a include/atomgpu.h share/atomgpu/fortran/atomgpu.f90 \
        share/atomgpu/fortran/atomgpu_core.f90 share/atomgpu/fortran/atomgpu_rates.f90 \
        share/atomgpu/fortran/atomgpu_linestrength.f90 share/atomgpu/fortran/atomgpu_sturmian.f90 \
        share/atomgpu/fortran/atomgpu_scf.f90 share/atomgpu/fortran/atomgpu_tdse.f90 \
        lib/pkgconfig/atomgpu.pc lib/cmake/atomgpu/atomgpu-config.cmake \
        lib/cmake/atomgpu/atomgpu-config-version.cmake; do
        [ -f "$root/$f" ] || { echo "error: make install did not install $prefix/$f"; return 1; }
    done
    echo "installed under DESTDIR: $(cd "$root" && find . -type f | sort | tr '\n' ' ')"

    # The .pc file names the final prefix; the sysroot maps it into the staging folder.
    PKG_CONFIG_PATH="$root/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$tmp/stage" LD_LIBRARY_PATH="$root/lib" \
        smoke_programs "$tmp" "$root"
    version=$(PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --modversion atomgpu)

    if ! command -v cmake >/dev/null 2>&1; then
        echo "cmake not found: the CMake package check is skipped"
        return 0
    fi
    mkdir -p "$tmp/cmake"
    cp tests/packaging/smoke.c tests/packaging/smoke.f90 "$tmp/cmake/"
    cat > "$tmp/cmake/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(atomgpu_consumer LANGUAGES C Fortran)
find_package(atomgpu $version EXACT REQUIRED)
add_executable(prog smoke.c)
target_link_libraries(prog PRIVATE atomgpu::atomgpu)
add_executable(fprog smoke.f90)
target_link_libraries(fprog PRIVATE atomgpu::fortran)
CMAKE
    cmake -S "$tmp/cmake" -B "$tmp/cmake/build" -DCMAKE_PREFIX_PATH="$root" >/dev/null
    cmake --build "$tmp/cmake/build" >/dev/null
    "$tmp/cmake/build/prog"
    "$tmp/cmake/build/fprog"
    echo "find_package(atomgpu) gives atomgpu::atomgpu and atomgpu::fortran"
}

# EasyBuild 5 from PyPI, its major version pinned: the framework and the generic easyblocks (the
# easyconfig uses Binary), not the `easybuild` bundle, whose thousands of easyconfigs are not needed.
EASYBUILD_VERSIONS='>=5,<6'
# Lmod (Debian's package lmod), the module tool of EasyBuild 5's default configuration.
LMOD_INIT=/usr/share/lmod/lmod/init/bash

# make_tarball DIR: scripts/make-source-tarball.sh into DIR; prints the tarball's path.
make_tarball() {
    scripts/make-source-tarball.sh "$1" >&2
    local tarball
    tarball=$(find "$1" -maxdepth 1 -name 'atomgpu-*.tar.gz' -print -quit)
    [ -n "$tarball" ] || { echo "error: make-source-tarball.sh wrote no atomgpu-*.tar.gz into $1" >&2; return 1; }
    echo "$tarball"
}

# The easyconfig packaging/easybuild/atomgpu-<version>.eb, as a centre runs it: EasyBuild 5 and Lmod
# installed if missing, the source tarball made from this checkout (crates vendored), `eb` with the
# machine's cargo (--filter-deps=Rust) into a temporary prefix (its sanity check builds the smoke
# programs), then `module load atomgpu` must set the compiler and loader paths, and the smoke programs
# build through pkg-config alone against what EasyBuild installed and print the version they loaded.
stage_easybuild() {
    if [ ! -f "$LMOD_INIT" ]; then
        echo "Lmod not found: installing lmod with apt-get"
        apt_install lmod
    fi
    [ -f "$LMOD_INIT" ] || { echo "error: $LMOD_INIT missing after installing lmod"; return 1; }
    local tmp
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064  # expand now: the subshell's tmp
    trap "rm -rf '$tmp'" EXIT
    python3 -m venv "$tmp/venv"
    "$tmp/venv/bin/pip" install --quiet --disable-pip-version-check \
        "easybuild-framework$EASYBUILD_VERSIONS" "easybuild-easyblocks$EASYBUILD_VERSIONS"
    export PATH="$tmp/venv/bin:$PATH"
    eb --version

    local tarball version easyconfig
    mkdir -p "$tmp/sources/a/atomgpu"
    tarball=$(make_tarball "$tmp/sources/a/atomgpu")
    version=${tarball##*/atomgpu-}
    version=${version%.tar.gz}
    easyconfig=packaging/easybuild/atomgpu-$version.eb
    [ -f "$easyconfig" ] || { echo "error: no $easyconfig: the easyconfig's name follows Cargo.toml's version"; return 1; }
    grep -qx "version = '$version'" "$easyconfig" || { echo "error: $easyconfig does not say version = '$version'"; return 1; }

    # Lmod's init script reads variables that may be unset.
    set +u
    # shellcheck disable=SC1090
    . "$LMOD_INIT"
    set -u
    local as_root=()
    [ "$(id -u)" -ne 0 ] || as_root=(--allow-use-as-root-and-accept-consequences)
    if ! eb "$easyconfig" --prefix="$tmp/eb" --sourcepath="$tmp/sources" --tmpdir="$tmp/eb-tmp" \
        --filter-deps=Rust "${as_root[@]}"; then
        echo "FAIL: eb $easyconfig; the end of its log:"
        find "$tmp/eb-tmp" -name 'easybuild-*.log' -exec tail -40 {} +
        return 1
    fi

    local installdir=$tmp/eb/software/atomgpu/$version entry name want
    module use "$tmp/eb/modules/all"
    module load "atomgpu/$version"
    for entry in CPATH:/include LIBRARY_PATH:/lib LD_LIBRARY_PATH:/lib PKG_CONFIG_PATH:/lib/pkgconfig CMAKE_PREFIX_PATH:; do
        name=${entry%%:*}
        want=$installdir${entry#*:}
        case ":${!name:-}:" in
            *":$want:"*) echo "module load atomgpu: $name has $want" ;;
            *) echo "error: module load atomgpu left $name without $want: ${!name:-(unset)}"; return 1 ;;
        esac
    done
    mkdir -p "$tmp/smoke"
    smoke_programs "$tmp/smoke" "$installdir"
}

# The Spack package packaging/spack/spack_repo/atomgpu/packages/atomgpu/package.py without Spack
# (none is installed here): byte-compiled, then tests/packaging/spack_harness.py runs its phases on
# the source tarball against stand-ins of Spack's package API (the harness says what that proves and
# what only a real Spack shows), and the smoke programs build against what it installed.
stage_spack_recipe() {
    local tmp recipe=packaging/spack/spack_repo/atomgpu/packages/atomgpu/package.py tarball
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064  # expand now: the subshell's tmp
    trap "rm -rf '$tmp'" EXIT
    python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
        "$recipe" "$tmp/package.pyc"
    echo "$recipe compiles"
    tarball=$(make_tarball "$tmp")
    PYTHONDONTWRITEBYTECODE=1 python3 tests/packaging/spack_harness.py "$recipe" "$tarball" "$tmp/prefix"
    PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" LD_LIBRARY_PATH="$tmp/prefix/lib" smoke_programs "$tmp" "$tmp/prefix"
}

# ---------------------------------------------------------------------------------------------
run_stage "tools (gfortran, pkg-config, c++)" stage_tools
run_stage "NVRTC $NVRTC_WHEEL_VERSION for the kernel compile check" stage_nvrtc
run_stage "cargo fmt --check, cargo clippy -D warnings" stage_style
run_stage "cargo build --release" stage_cargo_build
run_stage "cargo test --release (header current, FFI guard, kernels, numerics)" stage_cargo_test
run_stage "include/atomgpu.h alone as C and C++" stage_header_alone
run_stage "C test programs (tests/c)" stage_c_tests
run_stage "reliability suite (tests/c/test_reliability.c: forked bad-input cases, threads)" stage_reliability
run_stage "C test programs under valgrind memcheck" stage_valgrind
run_stage "C examples compile, helium example runs (examples/c)" stage_c_examples
run_stage "Fortran test programs (tests/fortran)" stage_fortran_tests
run_stage "Fortran examples compile, line-list and helium examples run (examples/fortran)" stage_fortran_examples
run_stage "MPI: TDSE split over 2 and 3 ranks, jellium example on 1 and 2 (tests/mpi, examples/mpi)" stage_mpi
run_stage "exported symbols (header and Fortran bind names)" stage_symbols
run_stage "make install, pkg-config and CMake package" stage_install
run_stage "EasyBuild: eb packaging/easybuild/atomgpu-<version>.eb, module load atomgpu" stage_easybuild
run_stage "Spack package (packaging/spack) through its harness" stage_spack_recipe

echo
if [ "$failed" -gt 0 ]; then
    echo "failed stages:"
    printf '  %s\n' "${failed_names[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
