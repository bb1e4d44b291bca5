"""The objects a long-running process makes at start (modules, the app, the engine's catalogue), set aside from
garbage collection: they live as long as the process, and a full collection walked all of them every time."""

from __future__ import annotations

import gc


def set_aside() -> None:
    """Move every object alive now to the collector's permanent generation (``gc.freeze``).

    Called once a web or worker process has loaded the app, before it serves. A full collection in such a process
    took 75-100 ms of CPU (~170,000 objects of modules, routes, models and the engine's tables), paid by whichever
    request or grade happened to cross the threshold, and every time a large page or file (a MOOC course's grades)
    made enough objects to trigger one. Objects made later are collected as usual. Before a fork, the children
    inherit the set-aside objects untouched, so their memory pages stay shared with the parent."""
    gc.collect()
    gc.freeze()
