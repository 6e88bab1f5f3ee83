"""Natural language of a doc comment: a small dependency-free heuristic.

Scripts decide first (Cyrillic, CJK, Arabic ...); Latin-script text is scored by
language-specific letters (Vietnamese tone marks, German umlauts, Spanish ñ ...) and by
frequent function words. Returns an ISO 639-1 code, or None for text with no words
(e.g. a bare ``@param`` list). Good enough to tag chunks, not a general detector."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
# Javadoc/KDoc tags and markup carry no language signal.
_NOISE = re.compile(r"(@\w+|\{@\w+[^}]*\}|<[^>]+>|`[^`]*`|https?://\S+)")

_STOPWORD_TEXT = {
    "en": ("the of and to a in is it that for on with as are this be by an from "
           "or returns return if not which when used given"),
    "de": ("der die das und ist nicht ein eine zu den mit von für auf des dem "
           "wird werden oder wenn gibt zurück"),
    "fr": ("le la les et des est un une du en pour que qui dans sur par avec "
           "pas renvoie retourne si ce cette"),
    "es": ("el la los las y de que en un una es por para con del se al "
           "devuelve si este esta o"),
    "it": ("il lo la gli le e di che un una è per con del della non si "
           "restituisce se questo"),
    "pt": ("o a os as e de que em um uma é para com do da não se "
           "retorna este esta"),
    "nl": ("de het een en van is dat in op te met voor niet zijn wordt "
           "geeft als"),
}
_STOPWORDS = {lang: frozenset(words.split()) for lang, words in _STOPWORD_TEXT.items()}
# Letters that (nearly) only one of the Latin-script languages uses.
_MARKERS: dict[str, str] = {
    "de": "äöüß", "fr": "èêàçœùûëî", "es": "ñ¿¡", "pt": "ãõ", "it": "ì",
    "vi": "ăđơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ",
}
_WORD_LANGS: dict[str, tuple[str, ...]] = {}
for _lang, _words in _STOPWORDS.items():
    for _w in _words:
        _WORD_LANGS[_w] = (*_WORD_LANGS.get(_w, ()), _lang)
_MARKER_OF = {ch: lang for lang, letters in _MARKERS.items() for ch in letters}


def _script(ch: str) -> str | None:
    """A language for characters whose script is enough to decide it."""
    code = ord(ch)
    if 0x0400 <= code <= 0x04FF:
        return "uk" if ch in "іїєґІЇЄҐ" else "ru"
    if 0x3040 <= code <= 0x30FF:
        return "ja"
    if 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF:
        return "ko"
    if 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF:
        return "zh"
    for lo, hi, lang in ((0x0600, 0x06FF, "ar"), (0x0590, 0x05FF, "he"),
                         (0x0370, 0x03FF, "el"), (0x0E00, 0x0E7F, "th"),
                         (0x0900, 0x097F, "hi")):
        if lo <= code <= hi:
            return lang
    return None


def _by_script(text: str) -> str | None:
    counts: Counter[str] = Counter()
    latin = 0
    for ch in text:
        if not ch.isalpha():
            continue
        lang = _script(ch)
        if lang is None:
            latin += 1
        else:
            counts[lang] += 1
    if not counts:
        return None
    if counts["ja"]:  # Japanese mixes kana with Han characters
        counts["ja"] += counts.pop("zh", 0)
    # Cyrillic "і" alone does not make Ukrainian; a few letters would.
    if "uk" in counts and counts["uk"] < 2:
        counts["ru"] += counts.pop("uk")
    lang, n = counts.most_common(1)[0]
    return lang if n * 3 >= latin or n >= 20 else None


def detect_language(text: str | None) -> str | None:
    """ISO 639-1 code of the natural language of ``text``, None when there are no words."""
    if not text or not text.strip():
        return None
    cleaned = _NOISE.sub(" ", text)
    ascii_only = cleaned.isascii()  # the common case: skip the per-character passes
    if not ascii_only:
        by_script = _by_script(cleaned)
        if by_script:
            return by_script
    words = _WORD.findall(cleaned.lower())
    if not words:
        return None
    scores: Counter[str] = Counter()
    for w in words:
        for lang in _WORD_LANGS.get(w, ()):
            scores[lang] += 1
    if not ascii_only:
        lowered = unicodedata.normalize("NFC", cleaned.lower())
        for ch in lowered:
            lang = _MARKER_OF.get(ch) if ord(ch) > 127 else None
            if lang:
                scores[lang] += 2
        if scores.get("vi", 0) >= 4:
            return "vi"
        scores.pop("vi", None)
    if not scores:
        return "en"
    lang, best = scores.most_common(1)[0]
    # Short English comments ("Gets the user.") are the common case; ties go to English.
    return lang if best > scores["en"] else "en"
