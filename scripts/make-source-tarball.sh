#!/usr/bin/env bash
# scripts/make-source-tarball.sh [OUTDIR]: writes OUTDIR/atomgpu-<version>.tar.gz (OUTDIR defaults
# to the current folder), the source tarball that the EasyBuild easyconfig and the Spack package
# build from, on a machine without internet:
#
#   atomgpu-<version>/            the tracked files of this checkout (git ls-files, as they are in
#                                 the working tree; commit first for a release)
#   atomgpu-<version>/vendor/     every crate of Cargo.lock (cargo vendor --locked)
#   atomgpu-<version>/.cargo/config.toml
#                                 crates.io replaced by vendor/, and [net] offline = true: cargo
#                                 builds from the tarball alone and never tries the network
#
# The archive is reproducible: names sorted, owner root, every mtime that of the last commit,
# gzip without a time stamp; so the same checkout gives the same sha256 (printed at the end, for
# `spack checksum` or a site's version line). Needs git, cargo, GNU tar, gzip, sha256sum; the
# crates come from crates.io or, offline, from cargo's cache.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
outdir=${1:-.}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

cd "$root"
version=$(sed -n '/^\[package\]/,/^\[/s/^version *= *"\([^"]*\)".*/\1/p' Cargo.toml)
[ -n "$version" ] || { echo "error: no version in Cargo.toml's [package] section" >&2; exit 1; }
git rev-parse --is-inside-work-tree >/dev/null 2>&1 \
    || { echo "error: $root is not a git checkout (the tarball is made of its tracked files)" >&2; exit 1; }
name=atomgpu-$version
epoch=$(git log -1 --format=%ct)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tree="$tmp/$name"
mkdir -p "$tree"

# The tracked files as they are now (a tracked file deleted in the working tree is left out).
git ls-files -z | while IFS= read -r -d '' f; do
    [ -e "$f" ] && printf '%s\0' "$f"
done | tar --null -T - -cf - | tar -xf - -C "$tree"

mkdir -p "$tree/.cargo"
# cargo vendor prints the [source] tables that point crates.io at vendor/.
(cd "$tree" && cargo vendor --locked vendor 2>"$tmp/vendor.log") > "$tree/.cargo/config.toml" \
    || { cat "$tmp/vendor.log" >&2; exit 1; }
grep -q '^directory = "vendor"' "$tree/.cargo/config.toml" \
    || { echo "error: cargo vendor did not print the vendored-sources table:" >&2; cat "$tree/.cargo/config.toml" >&2; exit 1; }
printf '\n[net]\noffline = true\n' >> "$tree/.cargo/config.toml"

out="$outdir/$name.tar.gz"
tar -C "$tmp" --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime --format=posix \
    -cf - "$name" | gzip -n -9 > "$out.part"
mv "$out.part" "$out"
echo "$out: $(du -h "$out" | cut -f1), $(find "$tree/vendor" -mindepth 1 -maxdepth 1 -type d | wc -l) vendored crates"
echo "sha256 $(sha256sum "$out" | cut -d' ' -f1)"
