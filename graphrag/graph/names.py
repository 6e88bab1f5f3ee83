"""Names as they are stored in the GIN-indexed arrays of ``files`` (``ref_names``,
``provides``): bounded, since a GIN entry holds at most ~2.7 kB."""

from __future__ import annotations

import hashlib

# Longer names (hostile input) are stored as a head and a digest, on both sides of a
# match (references and definitions).
MAX_NAME = 200


def bounded_name(name: str) -> str:
    """``name``, or its head and a digest of all of it when longer than MAX_NAME."""
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return f"{name[:64]}~{digest}"
