#!/usr/bin/env bash
# Prepares a device run (see bench/device.sh):
#
#   bash bench/pack.sh [FAMILY]     rates, linestrength, sturmian, scf, tdse, all (default), tests
#                                   or scaling (bench/families.sh says what each holds)
#
# builds the release test binaries and the benchmarks, compiles the C and Fortran test programs
# and the Fortran examples against the library, packs them into .device/ with device-pack
# (../shared/tools/device-pack, or $DEVICE_PACK), then keeps only what bench/device.sh FAMILY
# runs (the family's test binaries, benchmarks and programs, the library) and strips every
# binary: a device call carries at most 64 MiB, and every test binary of the crate together is
# about twice that. Then: device tool, carry [".device"], command "bash bench/device.sh FAMILY"
# (or "bash bench/scaling.sh PART" after packing `scaling`).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
family=${1:-all}
. bench/families.sh
tests=$(family_tests "$family") || { echo "pack.sh: unknown family '$family'" >&2; exit 2; }
benches=$(family_benches "$family")
tool=${DEVICE_PACK:-../shared/tools/device-pack}
[ -x "$tool" ] || { echo "pack.sh: no device-pack at $tool (set DEVICE_PACK)" >&2; exit 2; }

stage=target/device-extra
rm -rf "$stage" && mkdir -p "$stage/bench" "$stage/progs" "$stage/mod"
if [ -n "$benches" ]; then
    cargo build --release $(printf -- '--example %s ' $benches)
    for b in $benches; do cp "target/release/examples/$b" "$stage/bench/"; done
fi
for c in tests/c/*.c; do
    name=$(basename "$c" .c)
    family_program "$family" "$name" || continue
    cc -std=c99 -O2 -Iinclude "$c" -o "$stage/progs/$name" -Ltarget/release -latomgpu -lm -pthread \
        || echo "warning: $c does not compile; not packed" >&2
done
for f in tests/fortran/*.f90; do
    name=$(basename "$f" .f90)_f
    family_program "$family" "$name" || continue
    gfortran -O2 -J "$stage/mod" fortran/atomgpu.f90 tests/fortran/support/checks.f90 "$f" -o "$stage/progs/$name" -Ltarget/release -latomgpu \
        || echo "warning: $f does not compile; not packed" >&2
done
for f in examples/fortran/*.f90; do
    name=$(basename "$f" .f90)
    family_program "$family" "$name" || continue
    gfortran -O2 -J "$stage/mod" fortran/atomgpu.f90 "$f" -o "$stage/progs/$name" -Ltarget/release -latomgpu \
        || echo "warning: $f does not compile; not packed" >&2
done
rm -rf "$stage/mod"
"$tool" "$stage/bench" "$stage/progs"

# Keep the family's test binaries (named <target>-<hash>), drop the others.
for t in .device/tests/*; do
    [ -f "$t" ] || continue
    target=$(basename "$t")
    target=${target%-*}
    case " $tests " in *" $target "*) ;; *) rm -f "$t" ;; esac
done
for name in $tests; do
    ls .device/tests/"$name"-* > /dev/null 2>&1 || echo "warning: test binary $name was not built; not packed" >&2
done
# Symbols are not needed to run (device-pack strips only debug information).
find .device -type f -perm -u+x ! -name run ! -name '*.sh' -exec strip --strip-unneeded {} \; 2>/dev/null || true
strip --strip-unneeded .device/lib/*.so* 2>/dev/null || true
echo "$family" > .device/family
du -sh .device
size=$(du -sm .device | cut -f1)
if [ "$size" -ge 64 ]; then
    echo "pack.sh: .device is ${size} MiB, more than a device call carries (64 MiB): pack a single family" >&2
    exit 1
fi
echo "pack.sh: .device holds the '$family' run (${size} MiB): device tool, carry [\".device\"], command \"bash bench/device.sh $family\""
