"""Run MinerU 4's Python SDK on one PDF and write its middle JSON: `python -m` this module.

chunkbench runs the SDK in a child process (not in its own) so that a hung or crashing parse can
be timed out and killed with all of its workers, as the CLI is; MinerU starts workers by spawn,
which this `__main__` guard makes safe.

Usage: python -m chunkbench.loaders.mineru.sdk_child PDF OUT_JSON TIER OCR_MODE PAGES [URL]
(PAGES is MinerU's page range, "" for all pages; URL a MinerU 4 API server, "" for none).
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> int:
    pdf, out, tier, ocr_mode, pages = argv[:5]
    url = argv[5] if len(argv) > 5 else ""
    if url:
        from mineru.parser import MinerUApiParser

        result = MinerUApiParser(api_url=url, tier=tier, ocr_mode=ocr_mode).parse(pdf, page_range=pages)
    else:
        from mineru.parser import parse

        result = parse(pdf, tier=tier, ocr_mode=ocr_mode, page_range=pages)
    tmp = f"{out}.part"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(result.to_dict(), fh, ensure_ascii=False)
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
