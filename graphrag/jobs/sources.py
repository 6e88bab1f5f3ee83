"""Repository sources: a git URL (or a local git repository) fetched with ``git`` into
``$GRAPHRAG_HOME/checkouts/``, or a local folder indexed in place.

Fetches are shallow (``--depth 1`` of the one commit wanted) and reuse the checkout of
the previous run, so a nightly run transfers the new snapshot only. git never prompts
for credentials (``GIT_TERMINAL_PROMPT=0``): a private repository needs credentials in
the URL, a credential helper or an SSH key of the worker's user.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

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


def _git(*args: str, cwd: Path | None = None) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true",
           "LC_ALL": "C"}
    try:
        done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=GIT_TIMEOUT_S, check=False)
    except FileNotFoundError as exc:
        raise SourceError("git is not installed on this worker") from exc
    except subprocess.TimeoutExpired as exc:
        raise SourceError(f"git {args[0]} took more than {GIT_TIMEOUT_S}s") from exc
    if done.returncode != 0:
        lines = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()]
        # git's last "fatal:" line says why; hints and progress come before it
        fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:"))]
        raise subprocess.CalledProcessError(done.returncode, args[0],
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
    shown = mask_text(url)
    with FileLock(str(dest) + ".lock"):
        try:
            if not (dest / ".git").is_dir():
                dest.mkdir(exist_ok=True)
                _git("init", "--quiet", cwd=dest)
                _git("remote", "add", "origin", url, cwd=dest)
            else:
                _git("remote", "set-url", "origin", url, cwd=dest)
        except subprocess.CalledProcessError as exc:
            raise SourceError(f"cannot prepare the checkout {dest}: {exc.output}") from None
        try:
            _git("fetch", "--quiet", "--depth", "1", "--no-tags", "origin", ref or "HEAD",
                 cwd=dest)
        except subprocess.CalledProcessError as exc:
            reason = mask_text(str(exc.output))
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
                              f"{mask_text(str(exc.output))}") from None


def head_commit(dest: Path) -> str | None:
    """The commit checked out in ``dest``, None when it is no checkout."""
    if not (dest / ".git").is_dir():
        return None
    try:
        return _git("rev-parse", "HEAD", cwd=dest)
    except subprocess.CalledProcessError:
        return None
