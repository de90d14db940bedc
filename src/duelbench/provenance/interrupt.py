"""Ctrl-C during compiled simulation loops: honoured between runs, never inside compiled code.

Python's own SIGINT handler raises :class:`KeyboardInterrupt` wherever the interpreter next runs
Python code, which can be a call back from compiled (numba) code into the interpreter; the
compiled code then carries on with the exception set and the process ends in a ``SystemError``
or a segmentation fault.  Inside :func:`deferred_interrupts` a first SIGINT only records that it
came (and gives SIGINT back its default action, so a second one ends the process at once);
:func:`check_interrupt`, called between runs, and the end of the block raise
:class:`KeyboardInterrupt` in plain Python code instead.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

#: Exit status of a command ended by Ctrl-C (128 + SIGINT, as a shell reports it).
EXIT_INTERRUPTED = 128 + signal.SIGINT

_pending = threading.Event()


def _record(signum, frame) -> None:
    """SIGINT handler: remember the interrupt; a second one ends the process (default action)."""
    _pending.set()
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def check_interrupt() -> None:
    """Raise :class:`KeyboardInterrupt` if Ctrl-C was pressed inside :func:`deferred_interrupts`.

    Call it between runs (e.g. from a ``progress`` callback), where no compiled code is running.
    """
    if _pending.is_set():
        _pending.clear()
        raise KeyboardInterrupt


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Hold back Ctrl-C during the block until :func:`check_interrupt` or the end of the block.

    Outside the main thread, or when SIGINT is ignored (a background job), the block runs as it
    is. The previous handler is restored on exit.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous == signal.SIG_IGN:
        yield
        return
    _pending.clear()
    signal.signal(signal.SIGINT, _record)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
    check_interrupt()
