"""What a server process holds once: settings, an engine whose pool is sized for the
concurrent requests, and the embedding model, loaded in a background thread at start
so that the server answers ``/healthz`` at once and searches wait only for the model."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from graphrag.config import Settings
from graphrag.db.context import AppContext, AppScope, resolve_context, resolve_scope
from graphrag.db.engine import ping
from graphrag.embedding import Embedder, count_tokens, get_embedder, get_tokenizer
from graphrag.errors import GraphragError

# seconds a stopping server waits for a model load it may abandon
_ABANDON_AFTER = 3.0


@dataclass
class Runtime:
    """The shared state of one server process (HTTP or MCP)."""

    settings: Settings
    engine: Engine
    _model_error: str | None = None
    _model_ready: threading.Event = field(default_factory=threading.Event)
    _tokenizer: Any = None
    _embedder: Embedder | None = None
    _loader: threading.Thread | None = None
    # The process exists for this runtime (`graphrag serve`, `graphrag mcp`): a stop
    # during the model load ends the process instead of waiting for the load.
    owns_process: bool = False
    # The exit code of such a stop: a server that never started serving (its port taken)
    # failed, whatever stopped it.
    exit_code: Callable[[], int] = lambda: 0

    def start_model(self) -> threading.Thread:
        """Load and warm the model in a daemon thread (the first query then pays nothing)."""
        thread = threading.Thread(target=self._load, name="graphrag-model", daemon=True)
        thread.start()
        self._loader = thread
        return thread

    def close(self, timeout: float = 120, abandon: bool = True) -> None:
        """Wait for the model load to finish before the process exits: a daemon thread
        still inside the runtime's native code while the interpreter shuts down aborts
        the process (SIGABRT, "terminate called without an active exception").

        When the runtime ``owns_process``, a load still running after a few seconds (a
        first run exports the model for a minute or more) is abandoned: the process ends
        at once without the interpreter's shutdown, which is what aborts. The export's
        work folder is removed by the next export. ``abandon=False`` waits as when the
        runtime does not own its process (work that must finish is still running)."""
        if self._loader is None:
            return
        abandon = abandon and self.owns_process
        self._loader.join(_ABANDON_AFTER if abandon else timeout)
        if abandon and self._loader.is_alive():
            print("graphrag: stopped during the model load", file=sys.stderr)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(self.exit_code())

    def _load(self) -> None:
        try:
            warm = getattr(self.embedder(), "warm", None)
            if warm is not None:
                warm()
            self._tokenizer = get_tokenizer(self.settings)
        except GraphragError as exc:
            self._model_error = str(exc)
        except Exception as exc:  # noqa: BLE001 - reported by /readyz, raised again on use
            self._model_error = f"{type(exc).__name__}: {exc}"
        finally:
            self._model_ready.set()

    def embedder(self) -> Embedder:
        """The process-wide model (waits while it loads; raises what loading raised).
        Kept once loaded: ``get_embedder`` checks the model files' identity on every call
        (milliseconds a request need not pay)."""
        if self._embedder is None:
            self._embedder = get_embedder(self.settings)
        return self._embedder

    def count_tokens(self, value: str) -> int:
        if self._tokenizer is None:
            self._tokenizer = get_tokenizer(self.settings)
        return count_tokens(self._tokenizer, [value])[0]

    def context(self, app: str) -> AppContext:
        """The service context of one request for application ``app`` (resolved once)."""
        return resolve_context(self.engine, self.settings, app)

    def scope(self, apps: Sequence[str] = (), *, group: str | None = None,
              every: bool = False) -> AppScope:
        """The scope of one request reading applications ``apps`` (a group's, or with
        ``every`` all of them), resolved once; an unknown name is refused before any
        work."""
        return resolve_scope(self.engine, self.settings, apps, group=group, every=every)

    def model_state(self) -> dict[str, Any]:
        """``loading``, ``ready`` or ``failed`` (with the reason)."""
        if not self._model_ready.is_set():
            return {"status": "loading"}
        if self._model_error:
            return {"status": "failed", "error": self._model_error}
        return {"status": "ready", "model": self.embedder().name}

    def database_state(self) -> dict[str, Any]:
        """Whether a connection answers ``SELECT 1`` now."""
        try:
            ping(self.engine)
        except Exception as exc:  # noqa: BLE001 - any failure means "not ready"
            first = str(getattr(exc, "orig", None) or exc).strip().splitlines()
            return {"status": "unreachable", "error": (first[0] if first else "")[:200]}
        return {"status": "ok"}
