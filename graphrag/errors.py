"""The error hierarchy; the CLI maps each branch to an exit code.

    GraphragError
    ├── UserError            exit 1: the caller asked for something wrong
    │   ├── UnknownApplication
    │   ├── UnknownName      (strategy, kind, stage, mode ...)
    │   └── InvalidInput     (unreadable file, bad path, bad JSON ...)
    └── EnvironmentProblem   exit 3: the machine is not ready
        ├── DatabaseUnavailable
        └── ModelUnavailable

Anything else is a bug: the CLI shows its traceback with ``--debug``.
"""

from __future__ import annotations


class GraphragError(Exception):
    """Base of every error graphrag raises on purpose."""

    exit_code = 1


class UserError(GraphragError):
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
    pass


class EnvironmentProblem(GraphragError):
    exit_code = 3


class DatabaseUnavailable(EnvironmentProblem):
    pass


class ModelUnavailable(EnvironmentProblem):
    pass
