"""A job's log file: what a workflow job prints goes to its log."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def log_to(path: str | None) -> Iterator[None]:
    """Send stdout and stderr of the block to the file ``path`` (no-op for ``None``).

    Exceptions still propagate (the workflow prints them and points at the log).
    """
    if not path:
        yield
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh, contextlib.redirect_stdout(fh), contextlib.redirect_stderr(fh):
        try:
            yield
        except BaseException as exc:
            print(f"error: {type(exc).__name__}: {exc}", file=fh)
            raise
        finally:
            sys.stdout.flush()
