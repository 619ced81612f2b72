#!/usr/bin/env bash
# Public PDFs for the reviewer-defect tests and benchmarks (issue 55): taken from Debian packages
# (the Debian archive is one of this project's registries), never committed. SOURCES.tsv beside
# this script lists each file's package, version, path in the package and licence.
#   tests/data/public_pdfs/fetch.sh DIR
# Writes DIR/<file> for each row and DIR/.fetched when all are there; prints one line and exits 0
# when the archive cannot be reached (the tests that need a file then skip, naming it).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: fetch.sh DIR}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

download() {  # package version: the pinned version, else the archive's current one
  (cd "$work" && { apt-get download -qq "$1=$2" >/dev/null 2>&1 || apt-get download -qq "$1" >/dev/null 2>&1; })
}

missing=0
while IFS=$'\t' read -r file _kind _pages package version path _licence _use; do
  [ "$file" = "file" ] && continue
  [ -s "$out/$file" ] && continue
  deb="$(ls "$work"/"${package}"_*.deb 2>/dev/null | head -1)"
  if [ -z "$deb" ]; then
    download "$package" "$version" || { apt-get update -qq >/dev/null 2>&1 && download "$package" "$version"; }
    deb="$(ls "$work"/"${package}"_*.deb 2>/dev/null | head -1)"
  fi
  if [ -z "$deb" ]; then
    echo "public PDFs: could not download $package from the Debian archive: tests needing $file will skip"
    missing=1
    continue
  fi
  mkdir -p "$work/x"
  dpkg-deb -x "$deb" "$work/x"
  src="$work/x$path"
  case "$src" in
    *.gz) gunzip -c "$src" > "$out/$file.tmp" ;;
    *) cp "$src" "$out/$file.tmp" ;;
  esac && mv "$out/$file.tmp" "$out/$file"
done < "$here/SOURCES.tsv"
[ "$missing" = 0 ] && touch "$out/.fetched"
exit 0
