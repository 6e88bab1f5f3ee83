"""The git revision of an indexed tree: the commit a run saw, and whether the tree or its
remote has moved since (read with ``git``; every answer is None when git cannot tell:
no git, not a work tree, an unreachable remote)."""

from __future__ import annotations

import os
import subprocess
from datetime import datetime
from pathlib import Path

GIT_TIMEOUT_S = 10


def _git(root: Path | None, *args: str) -> str | None:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "LC_ALL": "C"}
    try:
        done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True,
                              timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", errors="surrogateescape")


def head_commit(root: Path) -> str | None:
    """The commit checked out in the work tree at ``root`` (None: no git work tree)."""
    if not root.is_dir():
        return None
    out = _git(root, "rev-parse", "--verify", "--quiet", "HEAD")
    return (out or "").strip() or None


def same_tree(root: Path, commit: str, other: str) -> bool:
    """Whether the files under ``root`` are the same in both commits (a commit elsewhere
    in the repository does not move a subfolder's index); False when git cannot tell."""
    try:
        done = subprocess.run(["git", "diff", "--quiet", commit, other, "--", "."],
                              cwd=root, capture_output=True, timeout=GIT_TIMEOUT_S,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def changed_since(root: Path, when: datetime) -> bool | None:
    """Whether a file of the work tree differs from its commit and was modified after
    ``when`` (an edit since the index run); None when git cannot tell."""
    out = _git(root, "status", "--porcelain", "-z", "--untracked-files=normal",
               "--no-renames", "--", ".")  # paths relative to the top, under root only
    if out is None:
        return None
    top = _git(root, "rev-parse", "--show-toplevel")
    base = Path(top.strip()) if top else root
    stamp = when.timestamp()
    for entry in filter(None, out.split("\0")):
        path = base / entry[3:]
        try:
            if path.stat().st_mtime > stamp:
                return True
        except OSError:  # deleted: its deletion time is not known
            continue
    return False


def remote_commit(url: str, ref: str | None) -> str | None:
    """The commit ``ref`` (None: the default branch) names in the remote now."""
    out = _git(None, "ls-remote", "--", url, ref or "HEAD")
    if not out:
        return None
    first = out.split("\n", 1)[0].split("\t", 1)[0].strip()
    return first or None
