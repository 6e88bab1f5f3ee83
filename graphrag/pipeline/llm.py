"""A minimal OpenAI-compatible chat-completions client (Ollama, vLLM, llama.cpp, OpenAI).

Standard library only (``urllib``): one POST to ``<base_url>/chat/completions`` with a
timeout, retried with exponential backoff on timeouts, connection errors, 429 and 5xx.
``base_url`` is the API root, e.g. ``http://localhost:11434/v1``; a bare
``http://host:port`` gets ``/v1`` appended.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from graphrag.pipeline.model import StageFailure

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})


class LLMError(StageFailure):
    """The model server did not give a usable answer (after retries where that helps)."""


def api_root(base_url: str) -> str:
    url = base_url.rstrip("/")
    return url + "/v1" if urlsplit(url).path in ("", "/") else url


@dataclass
class ChatClient:
    """Blocking chat-completions calls; safe to share between threads."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0
    retries: int = 2
    backoff: float = 0.5

    def complete(self, messages: list[dict[str, str]], *, max_tokens: int = 400) -> str:
        """The assistant's reply text; :class:`LLMError` with the reason on failure."""
        body = json.dumps({"model": self.model, "messages": messages, "temperature": 0,
                           "max_tokens": max_tokens, "stream": False}).encode()
        last = "no attempt made"
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                return self._post(body)
            except _Retryable as exc:
                last = str(exc)
        raise LLMError(f"LLM request failed after {self.retries + 1} attempts: {last}")

    def _post(self, body: bytes) -> str:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            api_root(self.base_url) + "/chat/completions", data=body, headers=headers,
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as resp:
                payload = resp.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read(300).decode("utf-8", "replace").strip()
            reason = f"HTTP {exc.code}" + (f": {detail}" if detail else "")
            if exc.code in RETRY_STATUSES:
                raise _Retryable(reason) from exc
            raise LLMError(f"LLM request rejected: {reason}") from exc
        except TimeoutError as exc:
            raise _Retryable(f"timed out after {self.timeout:g}s") from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise _Retryable(f"timed out after {self.timeout:g}s") from exc
            raise _Retryable(f"cannot reach {self.base_url}: {exc.reason}") from exc
        except (ConnectionError, OSError) as exc:
            raise _Retryable(f"connection error: {exc}") from exc
        return _reply_text(payload)


class _Retryable(Exception):
    pass


def _reply_text(payload: bytes) -> str:
    try:
        data = json.loads(payload)
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise LLMError(f"unexpected LLM response: {payload[:200]!r}") from exc
    if not isinstance(content, str) or not content.strip():
        raise LLMError("LLM returned an empty summary")
    return content.strip()
