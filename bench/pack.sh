#!/usr/bin/env bash
# Prepares a device run (see bench/device.sh):
#
#   bash bench/pack.sh [FAMILY]     rates, linestrength, sturmian, scf, tdse, all (default), tests
#                                   or scaling (bench/families.sh says what each holds)
#
# builds the library, the family's release test binaries and benchmarks, compiles its C and
# Fortran test programs and Fortran examples against the library, and packs them into .device/
# (tests/, lib/ with libatomgpu.so and the gfortran runtime the device machine lacks,
# extra/bench/, extra/progs/), every binary stripped: a device call carries at most 64 MiB, and
# every test binary of the crate together is about twice that. Then: device tool, carry
# [".device"], command "bash bench/device.sh FAMILY" (or "bash bench/scaling.sh PART" after
# packing `scaling`).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
family=${1:-all}
. bench/families.sh
tests=$(family_tests "$family") || { echo "pack.sh: unknown family '$family'" >&2; exit 2; }
benches=$(family_benches "$family")

rm -rf .device
mkdir -p .device/tests .device/lib .device/extra/bench .device/extra/progs
cargo build --release
cp target/release/libatomgpu.so .device/lib/
# The family's test binaries (cargo names them <target>-<hash>).
cargo test --release --no-run --message-format=json $(printf -- '--test %s ' $tests) \
    | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        print(m["executable"])
' | while read -r exe; do cp "$exe" .device/tests/; done
if [ -n "$benches" ]; then
    cargo build --release $(printf -- '--example %s ' $benches)
    for b in $benches; do cp "target/release/examples/$b" .device/extra/bench/; done
fi
progs=.device/extra/progs
mod=$(mktemp -d)
for c in tests/c/*.c; do
    name=$(basename "$c" .c)
    family_program "$family" "$name" || continue
    cc -std=c99 -O2 -Iinclude "$c" -o "$progs/$name" -Ltarget/release -latomgpu -lm -pthread \
        || echo "warning: $c does not compile; not packed" >&2
done
for f in tests/fortran/*.f90; do
    name=$(basename "$f" .f90)_f
    family_program "$family" "$name" || continue
    gfortran -O2 -J "$mod" fortran/atomgpu.f90 tests/fortran/support/checks.f90 "$f" -o "$progs/$name" -Ltarget/release -latomgpu \
        || echo "warning: $f does not compile; not packed" >&2
done
for f in examples/fortran/*.f90; do
    name=$(basename "$f" .f90)
    family_program "$family" "$name" || continue
    gfortran -O2 -J "$mod" fortran/atomgpu.f90 "$f" -o "$progs/$name" -Ltarget/release -latomgpu \
        || echo "warning: $f does not compile; not packed" >&2
done
rm -rf "$mod"
# The SCF driver's sample inputs (bench/device.sh runs scf_atom on xe.inp).
if [ -x "$progs/scf_atom" ]; then mkdir -p .device/extra/data && cp -r examples/data/scf .device/extra/data/; fi
# The gfortran runtime (the device machine has none).
for p in "$progs"/*; do
    ldd "$p" 2> /dev/null | awk '/=> \// {print $3}' | grep -E 'libgfortran|libquadmath' || true
done | sort -u | while read -r so; do cp -L "$so" .device/lib/; done
# Symbols are not needed to run them.
find .device -type f -perm -u+x -exec strip --strip-unneeded {} \; 2> /dev/null || true
strip --strip-unneeded .device/lib/*.so* 2> /dev/null || true
for name in $tests; do
    ls .device/tests/"$name"-* > /dev/null 2>&1 || echo "warning: test binary $name was not built; not packed" >&2
done
echo "$family" > .device/family
du -sh .device/*
du -sh .device
size=$(du -sm .device | cut -f1)
if [ "$size" -ge 64 ]; then
    echo "pack.sh: .device is ${size} MiB, more than a device call carries (64 MiB): pack a single family" >&2
    exit 1
fi
run="bash bench/device.sh $family"
[ "$family" = scaling ] && run="bash bench/scaling.sh tdse|assembly"
echo "pack.sh: .device holds the '$family' run (${size} MiB): device tool, carry [\".device\"], command \"$run\""
