#!/usr/bin/env bash
# Tesseract's English language data for the OCR tests, from Debian's tesseract-ocr-eng (the Debian
# archive is one of this project's registries), never committed and never installed system-wide:
# the tests point TESSDATA_PREFIX at it themselves, so every other test runs without OCR, as a
# machine without Tesseract does. PyMuPDF carries the Tesseract engine; it needs only this data.
#   tests/data/fetch_tessdata.sh DIR
# Writes DIR/eng.traineddata and DIR/.fetched; prints one line and exits 0 when the archive cannot be
# reached (the OCR tests then skip, naming this script).
set -uo pipefail
out="${1:?usage: fetch_tessdata.sh DIR}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && { apt-get download -qq tesseract-ocr-eng >/dev/null 2>&1 \
  || { apt-get update -qq >/dev/null 2>&1 && apt-get download -qq tesseract-ocr-eng >/dev/null 2>&1; }; })
deb="$(ls "$work"/tesseract-ocr-eng_*.deb 2>/dev/null | head -1)"
if [ -z "$deb" ]; then
  echo "fetch_tessdata.sh: tesseract-ocr-eng could not be downloaded; the OCR tests will skip"
  exit 0
fi
dpkg-deb -x "$deb" "$work/x"
data="$(find "$work/x" -name eng.traineddata | head -1)"
[ -n "$data" ] && cp "$data" "$out/eng.traineddata.tmp" && mv "$out/eng.traineddata.tmp" "$out/eng.traineddata" \
  && touch "$out/.fetched"
