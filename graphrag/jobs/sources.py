"""Repository sources: a git URL (or a local git repository) fetched with ``git`` into
``$GRAPHRAG_HOME/checkouts/``, or a local folder indexed in place.

Fetches are shallow (``--depth 1`` of the one commit wanted) and reuse the checkout of
the previous run, so a nightly run transfers the new snapshot only. git never prompts
for credentials (``GIT_TERMINAL_PROMPT=0``): a private repository needs credentials in
the URL, a credential helper or an SSH key of the worker's user.

Credentials in a URL (``https://user:token@host/x.git``) are kept in the repository's row
only (the worker needs them): every URL shown is redacted (:func:`redacted`), and the
checkout's ``.git/config`` holds the URL without them; git gets them from a credential
helper given on its command line for that one fetch, which reads them from its
environment (never from its arguments, which other users of the machine can see).
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from filelock import FileLock

from graphrag.db.url import mask_text
from graphrag.errors import InvalidInput

GIT_TIMEOUT_S = 600
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://|^[\w.-]+@[\w.-]+:")


class SourceError(InvalidInput):
    """The repository cannot be fetched or the ref does not exist (recorded on the
    repository's run; not retried: the next scheduled run tries again)."""


@dataclass(frozen=True)
class Source:
    """Where a repository comes from: ``url`` for git, else ``folder`` indexed in place."""

    url: str | None
    folder: Path | None


def resolve_source(raw: str) -> Source:
    """A git URL stays as given; a local path must exist: a git repository is fetched
    like a URL (``file://``, so the index sees the committed ref, not the working tree),
    any other folder is indexed in place."""
    if _SCHEME.match(raw):
        return Source(url=raw, folder=None)
    path = Path(raw).expanduser().resolve()
    if not path.is_dir():
        raise InvalidInput(f"{raw}: not a folder and not a git URL")
    if (path / ".git").exists():
        return Source(url=path.as_uri(), folder=None)
    return Source(url=None, folder=path)


# Userinfo of a URL with a scheme; for http(s) even a lone user name is a secret (a
# token as the user: https://<token>@github.com/...).
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<auth>[^/?#\s]*)@")
_TOKEN_SCHEMES = ("http://", "https://", "ftp://", "ftps://")
# The helper prints the credentials it finds in its environment (set for one git call).
_HELPER = ("!f() { test \"$1\" = get || exit 0;"
           " printf 'username=%s\\npassword=%s\\n' \"$GRAPHRAG_GIT_USERNAME\""
           " \"$GRAPHRAG_GIT_PASSWORD\"; }; f")


def redacted(url: str) -> str:
    """``url`` fit for showing: a password, or an http(s) user name that may be a token,
    replaced by ``***`` (also inside an error message)."""
    def mask(match: re.Match[str]) -> str:
        scheme, auth = match.group("scheme"), match.group("auth")
        if ":" in auth:
            return f"{scheme}{auth.split(':', 1)[0]}:***@"
        return f"{scheme}***@" if scheme.lower() in _TOKEN_SCHEMES else match.group(0)
    return mask_text(_USERINFO.sub(mask, url))


def split_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """(the URL without user and password, (user, password)) of an http(s) URL with
    credentials; (url, None) for any other URL."""
    if not url.lower().startswith(_TOKEN_SCHEMES):
        return url, None
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    auth, _, host = parts.netloc.rpartition("@")
    user, _, password = auth.partition(":")
    return urlunsplit(parts._replace(netloc=host)), (unquote(user), unquote(password))


def _git(*args: str, cwd: Path | None = None,
         credentials: tuple[str, str] | None = None) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true",
           "LC_ALL": "C"}
    command = args[0]
    if credentials is not None:
        env["GRAPHRAG_GIT_USERNAME"], env["GRAPHRAG_GIT_PASSWORD"] = credentials
        # the configured helpers are replaced for this call only ('' resets the list)
        args = ("-c", "credential.helper=", "-c", f"credential.helper={_HELPER}", *args)
    try:
        done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=GIT_TIMEOUT_S, check=False)
    except FileNotFoundError as exc:
        raise SourceError("git is not installed on this worker") from exc
    except subprocess.TimeoutExpired as exc:
        raise SourceError(f"git {command} took more than {GIT_TIMEOUT_S}s") from exc
    if done.returncode != 0:
        lines = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()]
        # git's last "fatal:" line says why; hints and progress come before it
        fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:"))]
        raise subprocess.CalledProcessError(done.returncode, command,
                                            output=(fatal or lines or ["failed"])[-1])
    return done.stdout.strip()


def checkout_dir(home: Path, repo_id: int, app_name: str) -> Path:
    """The repository's checkout folder on this machine (named for humans and unique)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", app_name).strip("._")[:60] or "app"
    return home / "checkouts" / f"{repo_id}-{slug}"


def fetch(url: str, ref: str | None, dest: Path) -> str:
    """Bring ``dest`` to ``ref`` (a branch, tag or commit; None: the remote's default
    branch) of ``url``; returns the commit checked out. One process at a time per
    checkout (a file lock beside it)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    shown = redacted(url)
    remote, credentials = split_credentials(url)
    with FileLock(str(dest) + ".lock"):
        try:
            if not (dest / ".git").is_dir():
                dest.mkdir(exist_ok=True)
                _git("init", "--quiet", cwd=dest)
                _git("remote", "add", "origin", remote, cwd=dest)
            else:  # also replaces a URL with credentials an older version stored
                _git("remote", "set-url", "origin", remote, cwd=dest)
        except subprocess.CalledProcessError as exc:
            raise SourceError(f"cannot prepare the checkout {dest}: {exc.output}") from None
        try:
            _git("fetch", "--quiet", "--depth", "1", "--no-tags", "origin", ref or "HEAD",
                 cwd=dest, credentials=credentials)
        except subprocess.CalledProcessError as exc:
            reason = redacted(str(exc.output))
            if ref and ("couldn't find remote ref" in reason or "not our ref" in reason
                        or "unadvertised object" in reason):
                raise SourceError(f"ref {ref!r} not found in {shown}") from None
            raise SourceError(f"cannot fetch {shown}: {reason}") from None
        try:
            _git("checkout", "--quiet", "--force", "--detach", "FETCH_HEAD", cwd=dest)
            _git("clean", "-qffdx", cwd=dest)
            return _git("rev-parse", "HEAD", cwd=dest)
        except subprocess.CalledProcessError as exc:
            raise SourceError(f"cannot check out {ref or 'HEAD'} of {shown}: "
                              f"{redacted(str(exc.output))}") from None


def head_commit(dest: Path) -> str | None:
    """The commit checked out in ``dest``, None when it is no checkout."""
    if not (dest / ".git").is_dir():
        return None
    try:
        return _git("rev-parse", "HEAD", cwd=dest)
    except subprocess.CalledProcessError:
        return None
