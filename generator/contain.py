"""Run one shell command so that no process it starts outlives it (Linux); run as a script by `verify`.

    python -I contain.py COMMAND

This process makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER): every process the
command starts stays its descendant, even one that starts its own session and whose parent
exits (a daemon's double fork), because an orphan is given to the nearest subreaper instead of
to init. When the command ends, or this process is told to stop (SIGTERM, which `verify` sends
at the timeout, and which it also gets when `verify` dies), it kills every descendant, again
and again until none is left, then exits as the command did. It needs no privilege.

What it cannot reach is a process the command has another service start (systemd-run, at or
cron, a container engine, ssh to this machine): that process is no descendant of anything here.

It imports only the standard library: it runs as a script, before and apart from errorsite.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from types import FrameType

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
SWEEP_SECONDS = 10.0
"""How long to go on killing descendants that keep appearing (a fork bomb) before giving up."""


class Stop(Exception):
    """This process was told to stop: the command's time is up, or `verify` is gone."""


def main(argv: list[str]) -> int:
    """Run the command `argv[1]`, end every process it started, and return its exit status."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        code = ctypes.get_errno()  # a kernel before 3.4: verify's own error says so, as a crash
        raise OSError(code, os.strerror(code))
    signal.signal(signal.SIGTERM, _stop)
    # verify may die without stopping us (kill -9): then we stop, and end what the command started.
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    status = -signal.SIGKILL
    try:
        shell = subprocess.Popen(["/bin/sh", "-c", argv[1]], stdin=subprocess.DEVNULL, start_new_session=True)
        status = shell.wait()
    except Stop:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        end_descendants()
    if status < 0:
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)  # end as the command ended: by its signal
    return status


def _stop(signum: int, frame: FrameType | None) -> None:
    raise Stop


def end_descendants() -> None:
    """Kill every descendant of this process and wait for each, until none is left."""
    me = os.getpid()
    deadline = time.monotonic() + SWEEP_SECONDS
    while time.monotonic() < deadline:
        found = descendants(me)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _reap()
        if not found:
            return
        time.sleep(0.005)


def descendants(root: int) -> list[int]:
    """Return the processes below `root`, by the parent each names in /proc (zombies left out)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue  # it ended meanwhile
        # The command name may hold spaces and parentheses: the fields follow its last ')'.
        state, parent = stat[stat.rfind(b")") + 2:].split(b" ", 2)[:2]
        if state != b"Z":
            children.setdefault(int(parent), []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def _reap() -> None:
    """Wait for every child that has ended (orphans become this process's children)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


if __name__ == "__main__":
    sys.exit(main(sys.argv))
