"""Writes reference.json: all-MiniLM-L6-v2 embeddings of a few texts as the real sentence-transformers
computes them (run where sentence-transformers and a CPU torch are installed; chunkbench itself no
longer needs them). tests/evaluate/test_retrieval_dense.py checks chunkbench's numpy encoder against these.

    python tests/data/minilm/make_reference.py
"""

import json
import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from sentence_transformers import SentenceTransformer, __version__  # noqa: E402

from chunkbench.text.minilm import model_dir  # noqa: E402

TEXTS = [
    "The feline rested on the rug all afternoon.",
    "Where did the cat sleep?",
    "Payment is due within thirty (30) days of the invoice date; late payments accrue interest at 4%.",
    "a",
    "Ünïcödé, ligatures (ﬁnance) and “quotes” — all in one line.",
    "The Supplier shall provide the Services in accordance with this Agreement. " * 30,  # past 256 tokens
]

model = SentenceTransformer(str(model_dir()), device="cpu")
vectors = model.encode(TEXTS, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
out = {"sentence_transformers": __version__, "texts": TEXTS, "embeddings": [[round(float(x), 7) for x in v] for v in vectors]}
Path(__file__).with_name("reference.json").write_text(json.dumps(out) + "\n", "utf-8")
