"""``sqlext bench NAME --baseline REV``: every sqlext workload runs a second
time on the sqlext of git revision REV, checked out into a temporary
worktree, in the same rounds as the current code. What a change costs is
then a ratio measured in one run, as the PostgreSQL peer's is."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory

CHECKOUT = Path(__file__).resolve().parents[3]
"""The repository this sqlext runs from."""


class BaselineUnavailable(RuntimeError):
    """The revision cannot be checked out (no git, no repository, no such revision)."""


@dataclass(frozen=True)
class Baseline:
    revision: str
    source: Path
    """The worktree holding its code."""

    @property
    def target(self) -> str:
        return f"sqlext {self.revision}"


@contextmanager
def baseline(revision: str) -> Iterator[Baseline]:
    with TemporaryDirectory(prefix="sqlext-baseline-") as directory:
        tree = Path(directory) / "tree"
        _git("worktree", "add", "--detach", "--quiet", str(tree), revision)
        try:
            yield Baseline(revision, tree)
        finally:
            _git("worktree", "remove", "--force", str(tree))


def _git(*args: str) -> None:
    if not (CHECKOUT / ".git").exists():
        raise BaselineUnavailable(f"--baseline runs from a git checkout of sqlext, and {CHECKOUT} "
                                  "is not one")
    try:
        subprocess.run(["git", "-C", str(CHECKOUT), *args], check=True, capture_output=True,
                       text=True)
    except FileNotFoundError as exc:
        raise BaselineUnavailable("--baseline needs git") from exc
    except subprocess.CalledProcessError as exc:
        raise BaselineUnavailable(f"git {' '.join(args[:2])}: {exc.stderr.strip()}") from exc
