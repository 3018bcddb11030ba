"""A long-lived launcher that forks each sandboxed run's first process instead of starting an interpreter.

Every sandboxed run starts ``nsinit.py`` in a fresh, single-threaded Python; its start-up and
imports cost more CPU than everything else a run of ``true`` does. The launcher is that same
interpreter, started once per grading process with the same flags (``-I -S``) and the same
scrubbed environment, which imports ``nsinit`` and then forks once per run. The forked child
is what a fresh ``nsinit.py`` process would be: single-threaded, its own session, its stdout and
stderr on the pipes the kit reads, nothing of the previous run (it is a fork of a process
that has run nothing). Standard library only, like nsinit, and it never imports gradelib.

Per run the kit sends one JSON line (nsinit's config) with three descriptors (nsinit's control
socket, stdout, stderr), through the fork server protocol (``forkserver.py``, loaded by its path
like nsinit). When its control pipe to the kit closes (the kit's process is gone) the launcher
kills what it still runs and exits.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import signal
import socket
import sys
from types import ModuleType


def _load(name: str) -> ModuleType:
    """A sibling module of this file, loaded by its path (this interpreter has no gradelib on its path)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(os.path.dirname(__file__), f"{name}.py"))
    if spec is None or spec.loader is None:
        raise ImportError(f"{name}.py is missing")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def _child(nsinit: ModuleType, config: bytes, fds: list[int]) -> None:
    """In the fork (a session of its own already): become nsinit for this run; never returns."""
    code = 1
    try:
        control, out, err = fds
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        for number in (signal.SIGTERM, signal.SIGPIPE):
            signal.signal(number, signal.SIG_DFL)
        keep = os.dup(control) if control < 3 else control
        os.closerange(3, keep)
        os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
        code = nsinit.main(["nsinit", config.decode(), str(keep)])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def main(argv: list[str]) -> int:
    """`python -I -S launchserver.py SOCKET_PATH CONTROL_FD`: import nsinit, say ready, serve."""
    path, control = argv[1], int(argv[2])
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a kit gone mid-start is an error here, not a silent death
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        forkserver, nsinit = _load("forkserver"), _load("nsinit")
        listener.bind(path)
        listener.listen(64)
        os.write(1, b"ready\n")  # stdout is the kit's pipe for this one line
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
        forkserver.serve(listener, control, functools.partial(_child, nsinit), fds=3)
    except OSError:
        return 1
    finally:  # the kit may be gone without a word (a kernel ends with os._exit): leave no folder behind
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(path)
        with contextlib.suppress(OSError):
            os.rmdir(os.path.dirname(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
