#!/usr/bin/env python3
"""Plots the aluminium collisional-radiative run of examples/fortran/cr_aluminium.f90 in the
layout of Figure 3 of the paper (degenerate-rates-quadrature-gpu, section 4):

  (a) electron temperature T_e against time: Fermi-Dirac (FD, solid), Maxwell-Boltzmann (MB,
      dashed) and, when the run has it, Fermi-Dirac as the paper's authors' code computes it
      (FD-authors, dotted: three-body recombination divided once more by n_e, and the inverse
      bremsstrahlung of that code; see examples/fortran/cr_aluminium.f90);
  (b) free-electron density n_e against time, same styles;
  (c) ion populations summed per charge state (Al3+ .. Al6+) against time, Fermi-Dirac run.

With the library's rates FD and MB nearly coincide; the paper's Figure 3 difference (FD ionizes
more and ends cooler) is the FD-authors curve.

Usage (from the repository root, after the example has run):
    python3 examples/plot_cr.py out/cr_aluminium.csv out/cr_aluminium.png

The charge of each level is read from examples/data/aluminium-cr-levels.csv (next to this
script). Needs matplotlib (pip install matplotlib).
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

LEVELS_CSV = Path(__file__).resolve().parent / "data" / "aluminium-cr-levels.csv"
# statistics column -> (line style, label); a run missing from the CSV is skipped.
STYLE = {
    "FD": ("-", "Fermi-Dirac"),
    "MB": ("--", "Maxwell-Boltzmann"),
    "FD-authors": (":", "FD as the authors' code computes it (3-body recombination / $n_e$, their IB)"),
}


def read_run(path):
    """{statistics: {"t": [...], "te": [...], "ne": [...], "pops": [[N1..Nn], ...]}}, by time."""
    runs = defaultdict(lambda: {"t": [], "te": [], "ne": [], "pops": []})
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        if header[:4] != ["statistics", "time_s", "te_ev", "ne_cm3"]:
            sys.exit(f"{path}: unexpected header {header[:4]}")
        for row in reader:
            if not row:
                continue
            run = runs[row[0].strip()]
            run["t"].append(float(row[1]))
            run["te"].append(float(row[2]))
            run["ne"].append(float(row[3]))
            run["pops"].append([float(v) for v in row[4:]])
    for run in runs.values():
        order = sorted(range(len(run["t"])), key=run["t"].__getitem__)
        for key in run:
            run[key] = [run[key][i] for i in order]
    return dict(runs)


def read_charges(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        next(reader)
        return [int(round(float(row[1]))) for row in reader if row]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_cr.py RUN.csv OUT.png")
    runs = read_run(sys.argv[1])
    charges = read_charges(LEVELS_CSV)

    fig, (ax_t, ax_n, ax_p) = plt.subplots(3, 1, figsize=(6.4, 9.6), sharex=True)
    for name, (style, label) in STYLE.items():
        if name not in runs:
            continue
        run = runs[name]
        t_ps = [t * 1e12 for t in run["t"]]
        ax_t.plot(t_ps, run["te"], style, color="C0", label=label)
        ax_n.plot(t_ps, run["ne"], style, color="C3", label=label)
    ax_t.set_ylabel(r"$T_e$ (eV)")
    ax_t.legend(loc="upper left", fontsize="small")
    ax_t.set_title("Al, 9e22 ions cm$^{-3}$, black body $T_r$ = 250 eV")
    ax_n.set_ylabel(r"$n_e$ (cm$^{-3}$)")
    ax_n.legend(loc="upper left", fontsize="small")

    if "FD" in runs:
        run = runs["FD"]
        t_ps = [t * 1e12 for t in run["t"]]
        n_levels = len(run["pops"][0])
        if n_levels != len(charges):
            sys.exit(f"{LEVELS_CSV} lists {len(charges)} levels, the run has {n_levels}")
        for z in sorted(set(charges)):
            total = [sum(p for p, c in zip(pops, charges) if c == z) for pops in run["pops"]]
            ax_p.plot(t_ps, total, "-", label=f"Al$^{{{z}+}}$")
        ax_p.set_ylabel(r"ion density (cm$^{-3}$)")
        ax_p.legend(loc="upper right", title="Fermi-Dirac")
    ax_p.set_xlabel("time (ps)")
    ax_p.set_xlim(left=0.0)
    for ax, tag in zip((ax_t, ax_n, ax_p), "abc"):
        ax.text(0.98, 0.05, f"({tag})", transform=ax.transAxes, ha="right", va="bottom")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
