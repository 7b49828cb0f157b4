#!/usr/bin/env bash
# The demo (`make demo`): builds the library and the Fortran collisional-radiative example
# (the paper's aluminium model: Fermi-Dirac and Maxwell-Boltzmann statistics with the library's
# stiff integrator, and Fermi-Dirac with three-body recombination and inverse bremsstrahlung as
# the paper's authors' code computes them, integrated by the example itself), runs it from the
# repository root (about 10 s on 2 idle CPU cores after the build), and writes
# out/cr_aluminium.csv and, with matplotlib, the plot out/cr_aluminium.png (compare with
# Figure 3 of the paper).
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ATOMGPU_ROOT"

ensure_command gfortran gfortran

echo "== building libatomgpu (cargo build --release)"
cargo build --release

build=build/demo
mkdir -p "$build" out
echo "== compiling fortran/atomgpu.f90 + examples/fortran/cr_aluminium.f90"
gfortran -O2 -J "$build" \
    fortran/atomgpu.f90 examples/fortran/cr_aluminium.f90 \
    -o "$build/cr_aluminium" \
    -L"$ATOMGPU_LIBDIR" -latomgpu -Wl,-rpath,"$ATOMGPU_LIBDIR"

echo "== running the aluminium CR model (writes out/)"
"$build/cr_aluminium"

if [ -f examples/plot_cr.py ]; then
    if ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
        echo "matplotlib not found: installing it with pip"
        python3 -m pip install --quiet matplotlib \
            || echo "warning: could not install matplotlib; the plot is skipped" >&2
    fi
    if python3 -c 'import matplotlib' >/dev/null 2>&1; then
        echo "== plotting"
        python3 examples/plot_cr.py out/cr_aluminium.csv out/cr_aluminium.png
    fi
fi

echo "== demo done: outputs in out/"
ls -l out
