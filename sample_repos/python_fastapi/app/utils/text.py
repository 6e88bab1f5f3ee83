"""Text helpers: slugs, e-mail normalisation, truncation."""

import re
import unicodedata

_NON_WORD = re.compile(r"[^a-z0-9]+")


def slugify(value: str) -> str:
    """``"Crème Brûlée!"`` -> ``"creme-brulee"``."""
    ascii_value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    return _NON_WORD.sub("-", ascii_value.lower()).strip("-")


def normalize_email(email: str) -> str:
    """Lower-case and trim an address so lookups are case-insensitive."""
    return email.strip().lower()


def truncate(value: str, width: int = 40, suffix: str = "...") -> str:
    """Shorten ``value`` to ``width`` characters, marking the cut with ``suffix``."""
    if len(value) <= width:
        return value
    return value[: max(0, width - len(suffix))] + suffix
