"""Token counts with the embedding model's own tokenizer (the model itself is not loaded).

The model and its tokenizer are found by :mod:`graphrag.embedding` (``GRAPHRAG_MODEL_PATH``
or the bundled all-MiniLM-L6-v2): one lookup for chunking, the pipeline and retrieval.
``tokenizer.json`` is read with the ``tokenizers`` library directly: same counts as
transformers' fast tokenizer, a tenth of a second to load and no torch."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path

from graphrag.config import Settings, load_settings
from graphrag.embedding import counting_tokenizer, max_seq_length, model_location

# Room left in the model's input for the chunk title/prefix the embed stage adds.
PREFIX_MARGIN = 16


class TokenCounter:
    """Counts tokens of text lines without special tokens, padding or truncation.

    BERT's pre-tokenizer splits on whitespace, so the tokens of several lines joined by
    newlines are exactly the sum of the lines' tokens: callers count each line once."""

    def __init__(self, folder: Path) -> None:
        self._tok = counting_tokenizer(folder)
        self.max_seq_length = max_seq_length(folder)

    @property
    def default_budget(self) -> int:
        return self.max_seq_length - PREFIX_MARGIN

    def count_lines(self, lines: Sequence[str]) -> list[int]:
        """Token count of each line."""
        if not lines:
            return []
        encs = self._tok.encode_batch(list(lines), add_special_tokens=False)
        return [len(e.ids) for e in encs]


@cache
def _counter(folder: str) -> TokenCounter:
    return TokenCounter(Path(folder))


def model_token_counter(settings: Settings | None = None) -> TokenCounter:
    """The counter of the embedding model ``settings`` name (``model_path``, the same
    lookup the embedder makes; default: the environment's settings), one per process
    and model."""
    path, _ = model_location(settings or load_settings())
    return _counter(str(path))
