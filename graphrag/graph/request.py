"""IndexRequest: what an index run is asked to do, validated before any work starts.

One value carries a run's options from where they are given (the command line, a queued
job's payload, the server) through the steps that read them (the graph step, the
documents step, planning), instead of the same keyword arguments at every level."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from graphrag.config import Settings
from graphrag.db.apps import validate_app_name
from graphrag.db.context import AppContext, resolve_context
from graphrag.errors import InvalidInput
from graphrag.graph.scan import compile_patterns


@dataclass(frozen=True)
class IndexRequest:
    """One index run of the repository at ``root`` into application ``application``.

    ``include``/``exclude``: gitignore-style globs; ``languages``: registry names (None:
    every language); ``full``: re-parse every file; ``graph_only``: stop after the graph
    and documents; ``allow_mass_delete``: let the run remove more than the configured
    share of the application's files; ``max_file_bytes``: overrides the size limit."""

    root: Path
    application: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    languages: frozenset[str] | None = None
    full: bool = False
    graph_only: bool = False
    allow_mass_delete: bool = False
    max_file_bytes: int | None = None

    @classmethod
    def of(cls, root: Path | str, application: str, *, include: Iterable[str] = (),
           exclude: Iterable[str] = (), languages: Iterable[str] | None = None,
           **flags: Any) -> IndexRequest:
        """A request from loose values (lists, strings), as callers and job payloads
        hold them; ``flags``: the boolean and size options by name."""
        return cls(Path(root), application, tuple(include), tuple(exclude),
                   frozenset(languages) if languages else None, **flags)

    @property
    def root_path(self) -> Path:
        """The repository's folder, absolute (what the application records)."""
        return self.root.expanduser().resolve()

    def validate(self) -> None:
        """Raise a user error for a request that cannot run (before anything is written)."""
        validate_app_name(self.application)
        compile_patterns(self.include, "--include")
        compile_patterns(self.exclude, "--exclude")
        if self.max_file_bytes is not None and self.max_file_bytes < 1:
            raise InvalidInput(f"max file bytes must be positive, got {self.max_file_bytes}")

    def settings(self, base: Settings) -> Settings:
        """``base`` with this run's overrides (the file size limit)."""
        return base.with_overrides(max_file_bytes=self.max_file_bytes)

    def context(self, engine: Engine, settings: Settings) -> AppContext:
        """Validate the request, then resolve its application once for the whole run
        (created on first use, the repository's folder recorded), with the run's settings."""
        self.validate()
        return resolve_context(engine, self.settings(settings), self.application, create=True,
                               root_path=str(self.root_path))

    def resolved(self) -> IndexRequest:
        """The same request with the root made absolute (a queued job runs elsewhere)."""
        return replace(self, root=self.root_path)

    def to_job(self) -> dict[str, Any]:
        """The queued job's payload (the ``graphrag.index`` task's keyword arguments; the
        shape queued jobs already hold, so they keep running after an upgrade)."""
        return {"app": self.application, "path": str(self.root), "include": list(self.include),
                "exclude": list(self.exclude),
                "languages": sorted(self.languages) if self.languages else None,
                "full": self.full, "graph_only": self.graph_only,
                "allow_mass_delete": self.allow_mass_delete,
                "max_file_bytes": self.max_file_bytes}

    @classmethod
    def from_job(cls, payload: dict[str, Any]) -> IndexRequest:
        """The request a job payload (:meth:`to_job`) describes."""
        data = dict(payload)
        return cls.of(data.pop("path"), data.pop("app"), **data)
