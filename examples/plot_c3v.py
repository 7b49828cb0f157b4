#!/usr/bin/env python3
"""Plots the stick spectrum of the C3v(M) line list of examples/fortran/linelist_c3v.f90: the
intensity of every line (cm/molecule, log scale) against its wavenumber (cm^-1) at T = 296 K,
E <-> E lines and A1 <-> A2 lines in two colours.

Usage (from the repository root, after the example has run):
    python3 examples/plot_c3v.py out/linelist-c3v/c3v_sticks.txt out/linelist-c3v/c3v_sticks.png

Needs matplotlib (pip install matplotlib).
"""
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402


def read_sticks(path):
    """(nu, I, lower species) of every line of the stick table."""
    lines = []
    with open(path) as table:
        for row in table:
            if row.startswith("#") or not row.strip():
                continue
            fields = row.split()
            lines.append((float(fields[0]), float(fields[1]), fields[4]))
    return lines


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_c3v.py STICKS_TXT OUT_PNG")
    lines = read_sticks(sys.argv[1])
    fig, ax = plt.subplots(figsize=(10, 4.5))
    # The sticks start a decade below the weakest line (the list's THRESH_INTES).
    floor = 0.1 * min(i for _, i, _ in lines)
    for species, colour, label in (("A1", "tab:red", "A1 <-> A2"), ("A2", "tab:red", None), ("E", "tab:blue", "E <-> E")):
        nu = [n for n, _, s in lines if s == species]
        intensity = [i for _, i, s in lines if s == species]
        if nu:
            ax.vlines(nu, floor, intensity, colors=colour, linewidth=0.4, label=label)
    ax.set_yscale("log")
    ax.set_ylim(bottom=floor)
    ax.set_xlabel("wavenumber (cm$^{-1}$)")
    ax.set_ylabel("intensity (cm/molecule)")
    ax.set_title(f"synthetic C3v(M) symmetric top, T = 296 K: {len(lines)} lines")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
