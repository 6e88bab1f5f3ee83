"""The model's Rust tokenizer (``tokenizers``), loaded without torch or transformers.

Two uses: counting tokens (no special tokens, no truncation: chunk budgets, context
packing) and encoding model input (special tokens, truncated to the model's window, as
sentence-transformers does)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from graphrag.config import Settings
from graphrag.embedding.model_files import model_location, require_model_dir
from graphrag.errors import ModelUnavailable


def tokenizer_file(folder: Path) -> Path:
    """``tokenizer.json`` of a model (or export) folder; ModelUnavailable when absent."""
    tok_file = folder / "tokenizer.json"
    if not tok_file.is_file():
        raise ModelUnavailable(f"embedding model missing: no tokenizer.json in {folder}")
    return tok_file


@cache
def _counting_tokenizer(path: str) -> Any:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(path)
    # The shipped tokenizer.json truncates/pads to 128 for the model; counting needs neither.
    tok.no_truncation()
    tok.no_padding()
    return tok


def counting_tokenizer(folder: Path) -> Any:
    """The tokenizer of a model folder, set up for counting (cached per file)."""
    return _counting_tokenizer(str(tokenizer_file(folder)))


def get_tokenizer(settings: Settings) -> Any:
    """The configured model's fast tokenizer (``tokenizers.Tokenizer``), for counting."""
    path, _ = model_location(settings)
    require_model_dir(path)
    return counting_tokenizer(path)


def input_tokenizer(tok_file: Path, max_length: int) -> Any:
    """A tokenizer that encodes model input: special tokens, truncated to ``max_length``
    tokens (special tokens included), no padding (batches are padded by the caller)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tok_file))
    tok.enable_truncation(max_length=max_length)
    tok.no_padding()
    return tok


def count_tokens(tokenizer: Any, texts: list[str]) -> list[int]:
    """Token counts (without special tokens) of many texts in one call."""
    if not texts:
        return []
    return [len(enc.ids) for enc in tokenizer.encode_batch(texts, add_special_tokens=False)]
