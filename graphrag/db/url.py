"""Database URLs: one place that parses, validates and masks them.

Parsing is the drivers' own: SQLAlchemy's ``make_url`` for ``postgresql://`` URLs and
psycopg's ``conninfo_to_dict`` for libpq keyword strings (``host=x dbname=y``), so what
we validate is what will be used. Every URL or connection error shown to a person goes
through :func:`mask_url` / :func:`scrub`: passwords in the authority (with or without a
user), and ``password``/``passfile``/``sslpassword`` parameters, are replaced by ``***``.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from graphrag.errors import ConfigurationError

DRIVER = "postgresql+psycopg"
SECRET_PARAMS = ("password", "passfile", "sslpassword")
MASK = "***"
_EXPECTED = "expected postgresql://user:password@host:port/dbname or 'host=... dbname=...'"

# Fallback masking for text that is not (or not only) a parsable URL.
_AUTHORITY = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<auth>[^/?#\s]*)@")
_PARAM = re.compile(
    r"(?i)\b(?P<key>" + "|".join(SECRET_PARAMS) + r")(?P<eq>\s*=\s*)"
    r"(?P<value>'(?:[^'\\]|\\.)*'|\"[^\"]*\"|[^\s&;,]*)")


def _mask_authority(match: re.Match[str]) -> str:
    auth = match.group("auth")
    # everything up to the last '@' is user info; keep the user name only
    user = auth.split(":", 1)[0] if "@" not in auth else ""
    return f"{match.group('scheme')}{user}:{MASK}@" if (":" in auth or "@" in auth) \
        else match.group(0)


def mask_text(text: str) -> str:
    """``text`` with URL passwords and secret parameters replaced by ``***``; works on
    anything (an unparsable URL, a keyword string, an error message)."""
    text = _AUTHORITY.sub(_mask_authority, text)
    return _PARAM.sub(lambda m: f"{m.group('key')}{m.group('eq')}{MASK}", text)


def mask_url(url: URL | str) -> str:
    """A URL fit for printing: no password in any form."""
    if isinstance(url, str):
        try:
            url = parse_database_url(url)
        except ConfigurationError:
            return mask_text(url)
    secrets = {k: MASK for k in url.query if k.lower() in SECRET_PARAMS}
    if secrets:
        url = url.update_query_dict(secrets)
    shown = url.set(drivername=url.get_backend_name()).render_as_string(hide_password=True)
    base, sep, query = shown.partition("?")
    return base + sep + unquote(query)  # host=/tmp/x reads better than host=%2Ftmp%2Fx


def secrets_of(url: URL) -> list[str]:
    """The secret values of a parsed URL (password and secret parameters)."""
    values = [url.password or ""]
    for key, value in url.query.items():
        if key.lower() in SECRET_PARAMS:
            values.extend([value] if isinstance(value, str) else list(value))
    return [str(v) for v in values if v]


def scrub(message: str, url: URL | None = None) -> str:
    """An error message with the URL's secrets (and any URL-shaped secret) masked."""
    if url is not None:
        for secret in sorted(secrets_of(url), key=len, reverse=True):
            if len(secret) >= 3:  # shorter ones would mangle the message, not protect
                message = message.replace(secret, MASK)
    return mask_text(message)


def _from_keywords(raw: str) -> URL:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = {k: str(v) for k, v in conninfo_to_dict(raw).items()}
    except psycopg.Error as exc:
        reason = scrub(" ".join(str(exc).split()))
        raise ConfigurationError(f"malformed connection string {mask_text(raw)!r}:"
                                 f" {reason}") from None
    user = params.pop("user", None)
    password = params.pop("password", None)
    dbname = params.pop("dbname", None)
    return URL.create(DRIVER, username=user, password=password, database=dbname,
                      query=params)


def _check_port(port: str | int | None, shown: str) -> None:
    if port is None:
        return
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not 1 <= number <= 65535:
        raise ConfigurationError(f"bad port {str(port)!r} in database URL {shown}"
                                 " (1-65535)")


def parse_database_url(raw: str) -> URL:
    """The SQLAlchemy URL (psycopg 3 driver) for a PostgreSQL URL or libpq keyword string.

    Raises :class:`ConfigurationError` (exit 3) with the input masked when it is
    malformed, names another database, has a bad port, or holds an unencoded ``@``."""
    raw = raw.strip()
    if not raw:
        raise ConfigurationError(f"empty database URL ({_EXPECTED})")
    if "://" not in raw and "=" in raw:
        url = _from_keywords(raw)
        _check_port(url.query.get("port"), mask_url(url))  # type: ignore[arg-type]
        return url
    shown = mask_text(raw)
    try:
        url = make_url(raw)
    except ArgumentError:
        raise ConfigurationError(f"malformed database URL {shown!r} ({_EXPECTED})") from None
    except ValueError:  # the port is not a number
        port = re.sub(r"^.*@", "", raw.split("://", 1)[-1]).split("/", 1)[0].rsplit(":", 1)
        _check_port(unquote(port[-1]) if len(port) > 1 else "?", shown)
        raise ConfigurationError(f"malformed database URL {shown!r} ({_EXPECTED})") from None
    backend = url.get_backend_name()
    if backend not in ("postgresql", "postgres"):
        raise ConfigurationError(f"unsupported database {backend!r} in {shown!r}:"
                                 " graphrag needs PostgreSQL with pgvector (postgresql://...)")
    if url.host and "@" in url.host:
        raise ConfigurationError(f"malformed database URL {shown!r}: an '@' in the user name"
                                 " or password must be percent-encoded as %40")
    _check_port(url.port, shown)
    _check_port(url.query.get("port"), shown)  # type: ignore[arg-type]
    return url.set(drivername=DRIVER)
