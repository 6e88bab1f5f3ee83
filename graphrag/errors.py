"""The error hierarchy; the CLI maps each branch to an exit code.

    GraphragError
    ├── UserError            exit 1: the caller asked for something wrong
    │   ├── UnknownApplication
    │   ├── UnknownName      (strategy, kind, stage, mode ...)
    │   ├── InvalidInput     (unreadable file, bad path, bad JSON ...)
    │   │   ├── DocumentError  (corrupt/encrypted document; recorded, never stops a run)
    │   │   ├── NotFound       (no such node, document or job in this application)
    │   │   │   └── UnknownSymbol  (an fqn that names no node; lists the closest names)
    │   │   └── TooLarge       (a file or upload over its size limit)
    │   ├── UsageError       (options that do not go together; exit 2 like click's own)
    │   ├── NotAllowed       (an API key used for an application it is not scoped to)
    │   ├── InvalidPattern   (include/exclude glob; exit 2 like any usage error)
    │   ├── StagesFailed     (an index run finished, but stages failed on some chunks)
    │   └── MassDeleteRefused (a run would remove most of an application's files)
    └── EnvironmentProblem   exit 3: the machine is not ready
        ├── ConfigurationError  (a malformed GRAPHRAG_* variable, a bad database URL)
        ├── DatabaseUnavailable (unreachable, lost mid-run, no pgvector, unknown schema)
        ├── ModelUnavailable
        └── ModelMismatch    (an application's vectors come from another model)

Anything else is a bug: the CLI shows its traceback with ``--debug``. The HTTP server maps
the same branches to statuses (``graphrag.server.errors``): NotFound and
UnknownApplication 404 (an ambiguous UnknownSymbol 409 with its candidates), TooLarge 413,
NotAllowed 403, other user errors 400 (422 for malformed requests), DatabaseUnavailable
and ModelUnavailable 503, other environment problems 500.
"""

from __future__ import annotations


class GraphragError(Exception):
    """Base of every error graphrag raises on purpose."""

    exit_code = 1


class UserError(GraphragError):
    """The caller asked for something wrong (exit 1, one line on stderr)."""

    exit_code = 1


class UnknownApplication(UserError):
    def __init__(self, name: str) -> None:
        super().__init__(f"unknown application: {name!r} (see `graphrag apps`)")
        self.name = name


class UnknownName(UserError):
    """An unknown strategy, kind, stage or mode; the message lists valid names."""

    def __init__(self, what: str, name: str, valid: list[str] | tuple[str, ...]) -> None:
        super().__init__(f"unknown {what}: {name!r} (valid: {', '.join(sorted(valid))})")


class InvalidInput(UserError):
    """Bad input: a missing path, an unreadable file, malformed JSON, a bad number."""


class NotFound(InvalidInput):
    """An id or name that names nothing in this application (a node, a document, a job)."""


class UnknownSymbol(NotFound):
    """A name (fqn) that means no node of the application, or several: the one-line
    message lists the closest names (or the candidates) so the next try can succeed."""

    def __init__(self, name: str, suggestions: list[str], *, ambiguous: bool = False,
                 more: str = "") -> None:
        if ambiguous:
            message = f"{name!r} is ambiguous: {', '.join(suggestions)}{more}"
        elif suggestions:
            message = f"no node named {name!r}; closest: {', '.join(suggestions)}"
        else:
            message = f"no node named {name!r} in this application"
        super().__init__(message)
        self.name = name
        self.suggestions = suggestions
        self.ambiguous = ambiguous  # the server answers 409 with the candidates


class DocumentError(InvalidInput):
    """The file cannot be read as its format (corrupt, encrypted, not text). Recorded on
    the document row (status ``failed``); it never stops a run."""


def size_text(n: float) -> str:
    """A byte count as an error message shows it: "600 bytes", "12.3 KB", "4.0 MB"."""
    if n < 1024:
        return f"{int(n)} bytes"
    if n < 1048576:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1048576:.1f} MB"


class TooLarge(InvalidInput):
    """A file or request over its size limit."""


class UsageError(UserError):
    """Options that do not go together (exit 2, as click's own usage errors). Raised by
    services so that they never depend on click."""

    exit_code = 2


class NotAllowed(UserError):
    """The caller may not use that application (its API key is scoped to others) or
    path; HTTP 403."""


class InvalidPattern(UserError):
    """An ``--include``/``--exclude`` glob that would silently match nothing or does not
    compile. A command-line usage error: exit 2, raised before anything is touched."""

    exit_code = 2


class StagesFailed(UserError):
    """A run finished and recorded everything, but pipeline stages failed on some
    chunks: exit 1 after the run's summary, pointing at ``graphrag pipeline status``."""


class MassDeleteRefused(UserError):
    """A run would delete more than the allowed share of an application's files (a wrong
    path or filter more often than a real deletion); nothing was changed."""


class EnvironmentProblem(GraphragError):
    """The machine is not ready: database unreachable, model missing (exit 3)."""

    exit_code = 3


class ConfigurationError(EnvironmentProblem):
    """A setting from the environment (``GRAPHRAG_*``) or a database URL is malformed."""


class DatabaseUnavailable(EnvironmentProblem):
    """The database cannot be reached or started."""


class ModelUnavailable(EnvironmentProblem):
    """The embedding model is missing or unusable."""


class ModelMismatch(EnvironmentProblem):
    """The configured embedding model (or backend) is not the one that made an
    application's vectors: comparing them would be meaningless."""
