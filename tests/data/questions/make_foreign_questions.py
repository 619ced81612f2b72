"""Write the sample contract's questions as Ragas and MTCB write question sets, with their own code.

Run once with ragas installed (`pip install ragas==0.4.3 "langchain-community<0.4"`, not a chunkbench dependency: it pulls
LangChain's community packages and OpenAI's client) and mtcb's wheel unpacked (`pip download
--no-deps mtcb==0.1.0`; its package pulls chonkie[all] and torch, so only its pydantic model file
`mtcb/dataset/types.py` is loaded, by path):

    python make_foreign_questions.py CONTRACT.questions.json MTCB_TYPES_PY OUT_DIR

Writes `contract.ragas.jsonl` (a Ragas Testset's `to_jsonl`: user_input, reference_contexts,
reference, synthesizer_name) and `contract.mtcb.jsonl` (MTCB's GeneratedSample, one
`model_dump_json()` a line). Evidence texts are the native file's; the tests check that each
format gives what the native file gives."""

import importlib.util
import json
import sys
from pathlib import Path

from ragas.dataset_schema import SingleTurnSample
from ragas.testset.synthesizers.testset_schema import Testset, TestsetSample

source, mtcb_types, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
rows = json.loads(source.read_text(encoding="utf-8"))

testset = Testset(samples=[
    TestsetSample(eval_sample=SingleTurnSample(user_input=r["question"], reference_contexts=[r["evidence_text"]],
                                               reference=r["evidence_text"]),
                  synthesizer_name="single_hop_specific_query_synthesizer")
    for r in rows])
testset.to_jsonl(out / "contract.ragas.jsonl")

spec = importlib.util.spec_from_file_location("mtcb_types", mtcb_types)
types = importlib.util.module_from_spec(spec)
spec.loader.exec_module(types)
with open(out / "contract.mtcb.jsonl", "w", encoding="utf-8") as f:
    for n, r in enumerate(rows):
        sample = types.GeneratedSample(question=r["question"], answer=r["evidence_text"],
                                       chunk_must_contain=r["evidence_text"], document_id=0, chunk_id=f"c{n}",
                                       verified=True)
        f.write(sample.model_dump_json() + "\n")
