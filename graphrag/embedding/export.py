"""Export a sentence-transformers model to ONNX once, and cache the result.

The export (the only code here that imports torch) traces the whole sentence-transformers
pipeline (transformer, pooling, dense layers, normalisation: whatever ``modules.json``
lists) with ``torch.onnx.export``, lets ONNX Runtime's transformer optimizer fuse
attention, GELU and layer norms, and derives the int8 variant with ONNX Runtime's
dynamic quantization. Quantization settings (measured in ``benchmarks/embed.py``): uint8
weights, one scale per output channel, MatMul nodes only. Signed int8 weights saturate
the AVX2 u8*s8 kernels (mean cosine to torch 0.92); per-tensor scales lose the outlier
channels of MiniLM's feed-forward layers (0.97); this setting holds 0.99.

The folder ``<models dir>/<name>-<key>/`` (key:
:func:`graphrag.embedding.export_format.export_key`, a hash of the source files and of
the export settings) holds ``model.onnx`` (fp32), ``model.int8.onnx``,
the tokenizer and ``meta.json``. A changed model file or export setting gives a new key,
hence a new export. Two processes exporting at once serialise on a file lock; the folder
appears by an atomic rename once complete, so a reader never sees half an export.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import re
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from graphrag.embedding.export_format import EXPORT_SETTINGS, INPUTS, META, MODEL_FILES, OUTPUT
from graphrag.embedding.notice import notify
from graphrag.errors import ModelUnavailable

if TYPE_CHECKING:
    from graphrag.embedding.model_files import ModelSpec

# The fp32 export must reproduce torch's vectors; below this the trace went wrong.
MIN_FP32_COSINE = 0.999
CHECK_TEXTS = [
    "how are users loaded by id",
    "def get_user(self, user_id: int) -> User:\n    return self.repo.find_by_id(user_id)",
    "Sum invoice line items and add sales tax.",
    " ".join(["public static void main(String[] args) { run(args); }"] * 40),  # truncated
]


def export_folder(spec: ModelSpec, root: Path) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", spec.name).strip("-") or "model"
    assert spec.export_key is not None
    return root / f"{slug}-{spec.export_key[:16]}"


def is_exported(folder: Path) -> bool:
    return (folder / META).is_file()


def ensure_export(spec: ModelSpec, root: Path) -> Path:
    """The export folder of ``spec``, exporting first when it does not exist yet."""
    return build_once(spec, root, _export,
                      f"exporting the embedding model {spec.name} to ONNX")


def build_once(spec: ModelSpec, root: Path, build: Callable[[ModelSpec, Path], None],
               notice: str) -> Path:
    """The folder of ``spec``'s build (``<root>/<name>-<key>``), running ``build(spec,
    work_dir)`` first (``notice`` on stderr) when it does not exist yet; ``build`` writes
    :data:`META` last: its presence marks a complete folder. Two processes serialise on a
    file lock; the folder appears by an atomic rename, so a reader never sees half a build.
    Shared by the ONNX export and the static model's distillation."""
    folder = export_folder(spec, root)
    if is_exported(folder):
        return folder
    from filelock import FileLock

    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        if is_exported(folder):  # another process finished it while we waited
            return folder
        # work folders of builds whose process was stopped mid-build (the lock is ours)
        for stale in root.glob(folder.name + ".tmp-*"):
            shutil.rmtree(stale, ignore_errors=True)
        notify(f"{notice}, once (about a minute; cached in {folder})")
        started = time.perf_counter()
        work = Path(tempfile.mkdtemp(prefix=folder.name + ".tmp-", dir=root))
        try:
            build(spec, work)
            if folder.exists():  # leftovers without meta.json: a build that died
                shutil.rmtree(folder)
            os.replace(work, folder)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        notify(f"model built in {time.perf_counter() - started:.0f}s")
    return folder


def _load_for_export(path: str) -> Any:
    from graphrag.embedding.torch_backend import load_sentence_transformer

    try:  # eager attention traces into plain MatMul/Softmax that the optimizer fuses
        return load_sentence_transformer(path, model_kwargs={"attn_implementation": "eager"})
    except ModelUnavailable:
        return load_sentence_transformer(path)


def _features(model: Any, texts: list[str]) -> dict[str, Any]:
    prepare = getattr(model, "preprocess", None) or model.tokenize
    return prepare(texts)


def _export(spec: ModelSpec, out: Path) -> None:
    import torch

    from graphrag.embedding.torch_backend import embedding_dimension

    model = _load_for_export(str(spec.path)).eval()
    features = _features(model, CHECK_TEXTS[:2])
    names = [n for n in INPUTS if torch.is_tensor(features.get(n))]

    class Pipeline(torch.nn.Module):
        """The sentence-transformers modules as one function of tensors."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *tensors: Any) -> Any:
            return self.model(dict(zip(names, tensors, strict=True)))[OUTPUT]

    raw = out / "model.raw.onnx"
    kwargs: dict[str, Any] = {}
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False  # the TorchScript exporter needs no onnxscript
    axes = {n: {0: "batch", 1: "sequence"} for n in names} | {OUTPUT: {0: "batch"}}
    with quiet_tools(), torch.no_grad():
        torch.onnx.export(Pipeline().eval(), tuple(features[n] for n in names), str(raw),
                          input_names=names, output_names=[OUTPUT], dynamic_axes=axes,
                          opset_version=EXPORT_SETTINGS["opset"], **kwargs)
    with quiet_tools():
        _optimize(raw, out / MODEL_FILES["onnx"], getattr(model[0], "auto_model", None))
        raw.unlink()
        _quantize(out / MODEL_FILES["onnx"], out / MODEL_FILES["onnx-int8"])
    _save_tokenizer(model, spec.path, out)
    transformer = model[0]
    meta = {
        "dim": embedding_dimension(model),
        "max_seq_length": int(model.max_seq_length),
        "inputs": names,
        "pad_id": int(getattr(model.tokenizer, "pad_token_id", None) or 0),
        "do_lower_case": bool(getattr(transformer, "do_lower_case", False)),
        "source_hash": spec.source_hash,
        "settings": EXPORT_SETTINGS,
        "torch": torch.__version__,
    }
    reference = model.encode(CHECK_TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    meta["check_cosine"] = _check(out, meta, np.asarray(reference, dtype=np.float32))
    if meta["check_cosine"]["onnx"] < MIN_FP32_COSINE:
        raise ModelUnavailable(
            f"the ONNX export of {spec.name} does not reproduce its torch vectors (cosine "
            f"{meta['check_cosine']['onnx']:.4f}): set GRAPHRAG_EMBED_BACKEND=torch")
    (out / META).write_text(json.dumps(meta, indent=2))


@contextmanager
def quiet_tools() -> Iterator[None]:
    """Silence the exporter's tracer warnings and the optimizer's and quantizer's log
    lines (they go to the root logger): the user sees our one notice."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        root.setLevel(level)


def _optimize(src: Path, dst: Path, transformer: Any) -> None:
    from onnxruntime.transformers.optimizer import optimize_model

    opt = EXPORT_SETTINGS["optimizer"]
    config = getattr(transformer, "config", None)
    # Heads and width from the model's config (0: let the optimizer guess). Architectures
    # the BERT fusions do not recognise keep their plain (still correct) graph.
    optimized = optimize_model(str(src), model_type=opt["model_type"],
                               num_heads=int(getattr(config, "num_attention_heads", 0) or 0),
                               hidden_size=int(getattr(config, "hidden_size", 0) or 0),
                               opt_level=opt["opt_level"])
    optimized.save_model_to_file(str(dst))


def _quantize(src: Path, dst: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    cfg = EXPORT_SETTINGS["int8"]
    quantize_dynamic(str(src), str(dst), weight_type=QuantType[cfg["weight_type"]],
                     per_channel=cfg["per_channel"], op_types_to_quantize=cfg["op_types"],
                     # fused contrib ops have no inferred output type: they are float
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})


def _save_tokenizer(model: Any, source: Path, out: Path) -> None:
    """The exact fast tokenizer transformers uses for this model, as ``tokenizer.json``."""
    backend = getattr(model.tokenizer, "backend_tokenizer", None)
    if backend is not None:
        backend.save(str(out / "tokenizer.json"))
    elif (source / "tokenizer.json").is_file():
        shutil.copyfile(source / "tokenizer.json", out / "tokenizer.json")
    else:
        raise ModelUnavailable(
            f"embedding model at {source} has no fast tokenizer: set GRAPHRAG_EMBED_BACKEND=torch")


def _check(out: Path, meta: dict[str, Any], reference: np.ndarray) -> dict[str, float]:
    """Lowest cosine of each ONNX variant's vectors to torch's on :data:`CHECK_TEXTS`."""
    from graphrag.embedding.onnx_backend import OnnxEmbedder

    result = {}
    for backend in MODEL_FILES:
        vectors = OnnxEmbedder("check", out, backend, threads=1, meta=meta).encode(CHECK_TEXTS)
        result[backend] = round(float((vectors * reference).sum(axis=1).min()), 5)
    return result
