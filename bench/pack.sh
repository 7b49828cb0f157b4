#!/usr/bin/env bash
# Prepares a device run (see bench/device.sh): builds the release test binaries and the
# benchmark, compiles the C and Fortran test programs and the Fortran examples against the library, and packs them into
# .device/ with ../shared/tools/device-pack. Then: device tool, carry [".device"],
# command "bash bench/device.sh FAMILY" (rates, linestrength, sturmian or all).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
cargo build --release --example rates_bench --example linestrength_bench --example sturmian_bench --example scf_bench
stage=target/device-extra
rm -rf "$stage" && mkdir -p "$stage/bench" "$stage/progs" "$stage/mod"
cp target/release/examples/{rates_bench,linestrength_bench,sturmian_bench,scf_bench} "$stage/bench/"
for c in tests/c/*.c; do
    cc -std=c99 -O2 -Iinclude "$c" -o "$stage/progs/$(basename "$c" .c)" -Ltarget/release -latomgpu -lm -pthread \
        || echo "warning: $c does not compile; not packed" >&2
done
for f in tests/fortran/*.f90; do
    gfortran -O2 -J "$stage/mod" fortran/atomgpu.f90 tests/fortran/support/checks.f90 "$f" -o "$stage/progs/$(basename "$f" .f90)_f" -Ltarget/release -latomgpu \
        || echo "warning: $f does not compile; not packed" >&2
done
for f in examples/fortran/*.f90; do
    gfortran -O2 -J "$stage/mod" fortran/atomgpu.f90 "$f" -o "$stage/progs/$(basename "$f" .f90)" -Ltarget/release -latomgpu \
        || echo "warning: $f does not compile; not packed" >&2
done
rm -rf "$stage/mod"
../shared/tools/device-pack "$stage/bench" "$stage/progs"
