"""What every backend offers, and the text form of a vector for pgvector."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Embedder(Protocol):
    """Anything that turns texts into unit vectors of a fixed dimension.

    ``name`` is the identity recorded in ``chunks.embed_model`` (model, backend and a
    hash of what produced the vectors): vectors of two names are never compared."""

    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray:
        """One float32 row of norm 1 per text."""
        ...


def vector_literal(vector: np.ndarray) -> str:
    """pgvector's text form ``[x,y,...]``, cast with ``::vector`` in SQL."""
    return "[" + ",".join(f"{x:.8g}" for x in vector.tolist()) + "]"
