#!/usr/bin/env bash
# The line-list demo: builds the library and the Fortran line-strength example (a synthetic
# molecule: 240 vibrational functions, J = 0..10, T = 296 K), runs it from the repository root
# into out/linelist/, and prints the first lines of the ExoMol files it writes there:
# linelist.states (ID, E - ZPE [cm^-1], g_tot, J) and linelist.trans (upper ID, lower ID,
# A [s^-1], nu [cm^-1]). ATOMGPU_BACKEND=cuda runs the line strengths on a GPU.
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ATOMGPU_ROOT"

ensure_command gfortran gfortran

echo "== building libatomgpu (cargo build --release)"
cargo build --release

# The flags of the Fortran tests (scripts/test-all.sh): standard Fortran 2018, run-time checks.
FFLAGS=(-std=f2018 -Wall -fcheck=all -g)
build=build/linelist-demo
out=out/linelist
mkdir -p "$build" "$out"
echo "== compiling fortran/atomgpu.f90 + examples/fortran/linelist_synthetic.f90"
gfortran "${FFLAGS[@]}" -J "$build" \
    fortran/atomgpu.f90 examples/fortran/linelist_synthetic.f90 \
    -o "$build/linelist_synthetic" \
    -L"$ATOMGPU_LIBDIR" -latomgpu -Wl,-rpath,"$ATOMGPU_LIBDIR"

echo "== running the synthetic line list (writes $out/)"
"$build/linelist_synthetic" "$out"

for f in "$out/linelist.states" "$out/linelist.trans"; do
    echo
    echo "== $f ($(wc -l < "$f") lines), first 10:"
    head -n 10 "$f"
done
