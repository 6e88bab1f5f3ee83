"""What an ONNX export folder holds and how its cache key is made: shared by the export
(:mod:`graphrag.embedding.export`, which writes the folder), the backend that reads it
(:mod:`graphrag.embedding.onnx_backend`) and the model's identity
(:mod:`graphrag.embedding.model_files`), none of which needs the others for it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

EXPORT_SETTINGS: dict[str, Any] = {
    "format": 1,
    "exporter": "torch.onnx (torchscript), eager attention",
    "opset": 17,
    "optimizer": {"model_type": "bert", "opt_level": 1, "heads": "from config"},
    "int8": {"weight_type": "QUInt8", "per_channel": True, "op_types": ["MatMul"]},
}
MODEL_FILES = {"onnx": "model.onnx", "onnx-int8": "model.int8.onnx"}
META = "meta.json"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "sentence_embedding"


def export_key(source_hash: str) -> str:
    """Cache key of an export: the source files' hash plus the export settings."""
    settings = json.dumps(EXPORT_SETTINGS, sort_keys=True)
    return hashlib.sha256(f"{source_hash}\0{settings}".encode()).hexdigest()
