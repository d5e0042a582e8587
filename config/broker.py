"""The embedded broker (no REDIS_URL): kombu's file-system transport, made safe for
concurrent writers and readers.

kombu's own channel opens a message file under its final name and only then locks and writes
it, while a reader lists the folder, moves the file and reads it: a reader can take a file
that is still empty (368 of 10,870 messages were read empty under load, and the worker
crashed). Here a message is written under a temporary name the readers do not look at and
renamed into place when complete (a rename within one file system is atomic), and a reader
claims a message by renaming it into the processed folder, beside the queue, before reading:
of two readers, one wins the rename and the other moves on. Nothing is ever read half-written
or twice.

The exchange tables (which queue is bound to which exchange) are files under the control
folder, and kombu writes a new one unsafely: when the file does not exist yet, it opens it
for writing, which creates it empty, before it takes the lock; a second process that binds
at that moment finds the file, locks it first and reads it empty (a JSON error: at a fresh
start, with the server's processes, the worker and beat all declaring the task queue, some
binds failed), or two processes both create it and the later one's table replaces the
other's (a binding lost: messages routed to nothing). Once the file exists, kombu reads and
rewrites it under its lock, safely. So every process declares the queues it uses through
kombu's public API while holding an exclusive lock of ours (`bindings_declared`, at start):
the first creates each file, alone; the others find it there.

Why a subclass and no setting: kombu's file-system transport takes its four folders and
`store_processed` (with every virtual transport's `polling_interval`), none about how a message
is written or claimed, and Celery's `broker_transport_options` only passes them on. `_put`
and `_get` are the two methods kombu's virtual transports implement (kombu.transport.virtual's
`AbstractChannel`: "the channel methods you'd usually want to implement in a virtual channel";
Redis, SQS and kombu's own file-system channel are such subclasses), so replacing them is
kombu's way to write a transport, not a reach into its internals; everything else (size,
purge, delete, the exchange tables) is kombu's, on kombu's own file names.
tests/config/test_broker_against_kombu.py pins this against kombu: only those two are
replaced, each channel reads what the other wrote, and kombu's own writer still leaves the gap
closed here (when a kombu release closes it, that test says so, and this can go).
"""

import fcntl
import os
import uuid
from collections.abc import Iterable
from pathlib import Path
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.transport.virtual import Empty
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

PARTIAL = ".part"  # a message still being written: never matches a reader's `<queue>.msg`
DECLARE_LOCK = ".declare.lock"  # in the control folder: one process declares at a time


def bindings_declared(connection: Any, queues: Iterable[Any]) -> None:
    """Declare `queues` (kombu Queues: their exchanges and bindings) on this file-system broker,
    one process at a time (see the module's docstring)."""
    control = Path(connection.transport_options["control_folder"])
    control.mkdir(parents=True, exist_ok=True)
    with open(control / DECLARE_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            channel = connection.default_channel
            for queue in queues:
                queue(channel).declare()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


class Channel(filesystem.Channel):
    def _put(self, queue: str, message: Any, **kwargs: Any) -> None:  # type: ignore[override]
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = final + PARTIAL
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(message)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {name!r} to the queue") from exc

    def _get(self, queue: str, timeout: float | None = None) -> Any:
        wanted = f"{queue}.msg"
        claimed_folder = self.processed_folder
        os.makedirs(claimed_folder, exist_ok=True)
        for name in sorted(os.listdir(self.data_folder_in)):
            if name.partition(".")[2] != wanted:
                continue
            claimed = os.path.join(claimed_folder, f"{name}.{os.getpid()}.{uuid.uuid4().hex}")
            try:
                os.rename(os.path.join(self.data_folder_in, name), claimed)
            except FileNotFoundError:
                continue  # another reader claimed it first
            try:
                with open(claimed, "rb") as file:
                    payload = file.read()
            finally:
                if not self.store_processed:
                    os.remove(claimed)
            return loads(bytes_to_str(payload))
        raise Empty()


class Transport(filesystem.Transport):
    Channel = Channel
