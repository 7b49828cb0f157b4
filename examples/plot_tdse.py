#!/usr/bin/env python3
"""Plots the table of examples/mpi/tdse_jellium.c: the survival probability of a (soft-cored)
hydrogen atom leaving a jellium surface (the population within 4 bohr of the moving ion), the overlap with the
initial state left at rest, and the norm that the absorbing layers leave, against time (a.u.).

Usage (from the repository root, after the example has run):
    python3 examples/plot_tdse.py out/tdse_jellium_2.dat out/tdse_jellium.png

Needs matplotlib (pip install matplotlib).
"""
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402


def read_table(path):
    """Columns t, x_ion, P_ion, overlap, norm of the example's table (comment lines skipped)."""
    rows = [list(map(float, line.split())) for line in open(path) if line.strip() and not line.startswith("#")]
    return list(zip(*rows))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    t, x_ion, population, overlap, norm = read_table(sys.argv[1])
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ax.plot(t, population, "-o", label="on the ion: $\\int_{|r-R(t)|<4}|\\psi|^2$")
    ax.plot(t, overlap, "--", label="$|\\langle\\psi(0)|\\psi(t)\\rangle|^2$ (state left at rest)")
    ax.plot(t, norm, ":", label="norm (absorber)")
    ax.set_xlabel("t (a.u.)")
    ax.set_ylabel("probability")
    top = ax.secondary_xaxis("top", functions=(lambda s: x_ion[0] + (x_ion[-1] - x_ion[0]) * s / t[-1],
                                               lambda x: (x - x_ion[0]) * t[-1] / (x_ion[-1] - x_ion[0])))
    top.set_xlabel("ion distance from the jellium edge (bohr)")
    ax.set_ylim(0, 1.05)
    ax.legend(loc="lower left")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
