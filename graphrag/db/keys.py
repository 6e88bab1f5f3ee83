"""API keys of the HTTP server: create (the key is shown once), list, revoke, and
authenticate a presented key. Only the SHA-256 of a key is stored."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, text

from graphrag.db.apps import validate_app_name
from graphrag.errors import InvalidInput, NotFound

KEY_PREFIX = "grk_"
SHOWN_CHARS = 12  # "grk_" and 8 random characters: enough to tell keys apart in a list


@dataclass(frozen=True)
class ApiKey:
    """An authenticated key: its id, label and the applications it may use."""

    id: int
    name: str | None
    apps: frozenset[str]


def hash_key(key: str) -> str:
    """The stored form of a key."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def create_key(engine: Engine, apps: Sequence[str], name: str | None = None) -> dict[str, Any]:
    """A new key for ``apps``; the returned ``key`` is the only time it is ever shown."""
    names = sorted({validate_app_name(a) for a in apps})
    if not names:
        raise InvalidInput("a key needs at least one --app")
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    with engine.begin() as conn:
        row = conn.execute(text(
            "INSERT INTO api_keys (name, prefix, key_hash, apps) VALUES (:n, :p, :h, :a)"
            " RETURNING id, created_at"),
            {"n": name, "p": key[:SHOWN_CHARS], "h": hash_key(key), "a": names}).one()
    return {"id": row.id, "name": name, "apps": names, "key": key,
            "created_at": row.created_at.isoformat()}


def list_keys(engine: Engine) -> list[dict[str, Any]]:
    """Every key (never the key itself): id, label, prefix, applications, dates."""
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT id, name, prefix, apps, created_at, last_used_at, revoked_at"
            " FROM api_keys ORDER BY id")).mappings().all()
    return [{"id": r["id"], "name": r["name"], "prefix": r["prefix"], "apps": list(r["apps"]),
             **{k: r[k].isoformat() if r[k] else None
                for k in ("created_at", "last_used_at", "revoked_at")}} for r in rows]


def revoke_key(engine: Engine, key_id: int) -> dict[str, Any]:
    """Revoke a key at once (revoking twice keeps the first date)."""
    with engine.begin() as conn:
        row = conn.execute(text(
            "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = :i"
            " RETURNING id, name, revoked_at"), {"i": key_id}).first()
    if row is None:
        raise NotFound(f"no API key with id {key_id}")
    return {"id": row.id, "name": row.name, "revoked_at": row.revoked_at.isoformat()}


def authenticate(engine: Engine, key: str) -> ApiKey | None:
    """The live key ``key`` names, else None (unknown or revoked). Records when it was
    last used, at most once a minute (a write per request would cost more than the
    lookup)."""
    if not key.startswith(KEY_PREFIX) or len(key) > 200:
        return None
    with engine.begin() as conn:
        row = conn.execute(text(
            "SELECT id, name, apps, last_used_at IS NULL"
            " OR last_used_at < now() - interval '1 minute' AS stale"
            " FROM api_keys WHERE key_hash = :h AND revoked_at IS NULL"),
            {"h": hash_key(key)}).first()
        if row is None:
            return None
        if row.stale:
            conn.execute(text("UPDATE api_keys SET last_used_at = now() WHERE id = :i"),
                         {"i": row.id})
    return ApiKey(row.id, row.name, frozenset(row.apps))
