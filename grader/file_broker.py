"""The embedded broker: kombu's file transport, with messages that appear whole or not at all.

kombu's own transport creates a message file and only then writes it, and its reader takes any file it lists: a
worker that lists the folder in between reads an empty message, and its JSON error stops the worker for good
(seen under load). Here a message is written under a name the reader ignores and renamed into place, which is
atomic within one folder.
"""
from __future__ import annotations

import logging
import os
import uuid
from queue import Empty
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.json import dumps

log = logging.getLogger(__name__)

TRANSPORT = "grader.file_broker:Transport"
PARTIAL_SUFFIX = ".part"  # never ends in "<queue>.msg", so readers skip a message still being written


class Channel(filesystem.Channel):
    """A file-transport channel whose messages are renamed into the queue folder once fully written."""

    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        """Put ``payload`` on ``queue``: write ``<name>.part``, then rename it to ``<name>`` in one step."""
        # kombu's naming: readers take files in name order, so the millisecond clock keeps the queue roughly FIFO.
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = final + PARTIAL_SUFFIX
        try:
            with open(partial, "wb") as file:
                file.write(dumps(payload).encode())
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue: str) -> Any:
        """The next message of ``queue``; a file that is not a message (cut short by a crash or a full disk) is
        dropped with a warning instead of stopping the worker: its row stays queued and the sweeper re-sends it."""
        try:
            return super()._get(queue)
        except ValueError as exc:
            log.warning("dropped an unreadable message file from queue %s (the sweeper re-sends its row): %s",
                        queue, exc)
            raise Empty() from exc


class Transport(filesystem.Transport):
    """kombu's file transport with the channel above."""

    Channel = Channel
