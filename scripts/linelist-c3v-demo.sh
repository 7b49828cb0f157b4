#!/usr/bin/env bash
# The degenerate-species line-list demo: builds the library, writes the synthetic C3v(M) model
# (examples/rust/c3v_model.rs: 120 vibrational functions, J = 0..10, species A1, A2, E), builds
# and runs the Fortran example examples/fortran/linelist_c3v.f90 into out/linelist-c3v/ (ExoMol
# c3v.states and c3v.trans, the stick table c3v_sticks.txt, the split-by-hand check), and plots
# the stick spectrum when matplotlib is there. ATOMGPU_BACKEND=cuda runs it on a GPU.
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ATOMGPU_ROOT"

ensure_command gfortran gfortran

echo "== building libatomgpu and the model writer (cargo build --release)"
cargo build --release --lib --example c3v_model

FFLAGS=(-std=f2018 -Wall -fcheck=all -g)
build=build/linelist-c3v-demo
out=out/linelist-c3v
mkdir -p "$build" "$out"
echo "== writing the C3v(M) model"
"$ATOMGPU_TARGET_DIR/release/examples/c3v_model" "$out/c3v_model.bin"
echo "== compiling fortran/atomgpu.f90 + examples/fortran/linelist_c3v.f90"
gfortran "${FFLAGS[@]}" -J "$build" fortran/atomgpu.f90 examples/fortran/linelist_c3v.f90 \
    -o "$build/linelist_c3v" -L"$ATOMGPU_LIBDIR" -latomgpu -Wl,-rpath,"$ATOMGPU_LIBDIR"
echo "== running the C3v line list (writes $out/)"
"$build/linelist_c3v" "$out/c3v_model.bin" "$out"
for f in "$out/c3v.states" "$out/c3v.trans"; do
    echo
    echo "== $f ($(wc -l < "$f") lines), first 5:"
    head -n 5 "$f"
done
if python3 -c "import matplotlib" 2>/dev/null; then
    python3 examples/plot_c3v.py "$out/c3v_sticks.txt" "$out/c3v_sticks.png"
else
    echo "(matplotlib not installed: no plot; pip install matplotlib, then python3 examples/plot_c3v.py ...)"
fi
