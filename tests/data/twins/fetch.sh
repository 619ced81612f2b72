#!/usr/bin/env bash
# PDFs with their structured twins (the HTML of the same version) for the gold tests and benchmark
# (issue 74): taken from Debian packages (the Debian archive is one of this project's registries),
# never committed. SOURCES.tsv beside this script lists each pair's packages, versions, paths,
# generator, licence and use (tuned on, or held out for independent checks).
#   tests/data/twins/fetch.sh DIR
# Writes DIR/<name>/<pdf file> and DIR/<name>/<twin file or folder> for each row, DIR/.fetched when
# all are there; prints one line and exits 0 when the archive cannot be reached (the tests that need
# a pair then skip, naming it).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: fetch.sh DIR}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

deb_of() {  # package version -> path of its .deb in $work (downloaded once): the pinned version, else the current one
  local deb
  deb="$(ls "$work"/"$1"_*.deb 2>/dev/null | head -1)"
  if [ -z "$deb" ]; then
    (cd "$work" && { apt-get download -qq "$1=$2" >/dev/null 2>&1 || apt-get download -qq "$1" >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1 && apt-get download -qq "$1" >/dev/null 2>&1; }; })
    deb="$(ls "$work"/"$1"_*.deb 2>/dev/null | head -1)"
  fi
  [ -n "$deb" ] && { [ -d "$work/x-$1" ] || dpkg-deb -x "$deb" "$work/x-$1"; } && echo "$work/x-$1"
}

put() {  # extracted path -> target (a .gz file is unpacked), through a temporary name
  local src="$1" dst="$2"
  rm -rf "$dst.tmp"
  case "$src" in
    *.gz) gunzip -c "$src" > "$dst.tmp" ;;
    *) cp -r "$src" "$dst.tmp" ;;
  esac && mv "$dst.tmp" "$dst"
}

missing=0
while IFS=$'\t' read -r name pdf_pkg pdf_ver pdf_path twin_pkg twin_ver twin_path _generator _licence _use; do
  [ "$name" = "name" ] && continue
  pdf_name="$(basename "${pdf_path%.gz}")"
  twin_name="$(basename "$twin_path")"
  [ -s "$out/$name/$pdf_name" ] && [ -e "$out/$name/$twin_name" ] && continue
  pdf_root="$(deb_of "$pdf_pkg" "$pdf_ver")"
  twin_root="$(deb_of "$twin_pkg" "$twin_ver")"
  if [ -z "$pdf_root" ] || [ -z "$twin_root" ]; then
    echo "twins: could not download $pdf_pkg or $twin_pkg from the Debian archive: tests needing $name will skip"
    missing=1
    continue
  fi
  mkdir -p "$out/$name"
  put "$pdf_root$pdf_path" "$out/$name/$pdf_name" && put "$twin_root$twin_path" "$out/$name/$twin_name" || missing=1
done < "$here/SOURCES.tsv"
[ "$missing" = 0 ] && touch "$out/.fetched"
exit 0
