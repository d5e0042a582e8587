"""The embedded broker's channel (config/broker.py) against kombu's own file-system channel, in
one process: it replaces only the two hooks kombu's virtual transports implement, keeps
kombu's files (each side reads what the other wrote; kombu's size and purge count ours), and
closes the gap kombu's own writer leaves (a reader taking a message not yet written)."""

import inspect
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kombu import Connection
from kombu.transport import filesystem
from kombu.transport.virtual import Empty
from kombu.transport.virtual.base import AbstractChannel

from config import broker

QUEUE = "race"


def options(folder: Path) -> dict[str, Any]:
    return {
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "processed_folder": str(folder / "claimed"),
        "control_folder": str(folder / "control"),
        "store_processed": False,
    }


@pytest.fixture
def channels(tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    """(ours, kombu's own), on one folder."""
    (tmp_path / "queue").mkdir()
    with (
        Connection(transport=broker.Transport, transport_options=options(tmp_path)) as ours,
        Connection(transport=filesystem.Transport, transport_options=options(tmp_path)) as own,
    ):
        yield ours.default_channel, own.default_channel


def messages(tmp_path: Path) -> list[str]:
    return sorted(path.name for path in (tmp_path / "queue").iterdir())


def test_only_kombus_virtual_channel_hooks_are_replaced():
    """`_put` and `_get` are the methods kombu's `AbstractChannel` names for a virtual channel
    to implement (every kombu virtual transport does); the rest is kombu's file-system channel
    as it is. A kombu that renamed them, or changed what they take, fails here first."""
    ours = {name for name in vars(broker.Channel) if not name.startswith("__")}

    assert ours == {"_put", "_get"}
    assert ours <= set(vars(AbstractChannel))
    assert broker.Channel.__mro__[1] is filesystem.Channel
    for name in ours:
        theirs = inspect.signature(getattr(filesystem.Channel, name)).parameters
        mine = inspect.signature(getattr(broker.Channel, name)).parameters
        assert list(theirs)[:2] == list(mine)[:2]  # (self, queue): how the base class calls
    assert broker.Transport.__mro__[1] is filesystem.Transport


def test_each_channel_reads_what_the_other_wrote_and_kombu_counts_ours(channels, tmp_path):
    ours, own = channels

    ours._put(QUEUE, {"body": "from ours"})
    [name] = messages(tmp_path)
    assert name.endswith(f".{QUEUE}.msg")  # kombu's file name: <ms>_<uuid>.<queue>.msg
    assert own._size(QUEUE) == 1
    assert own._get(QUEUE) == {"body": "from ours"}

    own._put(QUEUE, {"body": "from kombu"})
    assert ours._size(QUEUE) == 1
    assert ours._get(QUEUE) == {"body": "from kombu"}
    with pytest.raises(Empty):
        ours._get(QUEUE)

    ours._put(QUEUE, {"body": "purged"})
    assert own._purge(QUEUE) == 1
    assert messages(tmp_path) == []


def test_a_reader_never_takes_a_message_still_being_written(channels, tmp_path, monkeypatch):
    """The moment between a writer's open and its write, with a reader looking then: kombu's own
    writer has already made the file under its final name, and kombu's reader takes it empty
    (the worker crash config/broker.py was written for); ours is still writing under a name no
    reader looks at, and the message appears whole, once, when renamed into place."""
    ours, own = channels
    seen: dict[str, Any] = {}

    def kombus_reader_meanwhile(file: Any, flags: int) -> None:  # after open, before write
        try:
            seen["kombu"] = own._get(QUEUE)
        except json.JSONDecodeError as error:
            seen["kombu"] = error

    monkeypatch.setattr(filesystem, "lock", kombus_reader_meanwhile)
    monkeypatch.setattr(filesystem, "unlock", lambda file: None)
    own._put(QUEUE, {"body": "whole"})
    assert isinstance(seen["kombu"], json.JSONDecodeError)  # read empty: the message is lost
    assert messages(tmp_path) == []
    monkeypatch.undo()

    replace = os.replace

    def our_reader_meanwhile(partial: str, final: str) -> None:  # written, not yet in place
        with pytest.raises(Empty):
            ours._get(QUEUE)
        seen["ours, before"] = own._size(QUEUE)
        replace(partial, final)

    monkeypatch.setattr(os, "replace", our_reader_meanwhile)
    ours._put(QUEUE, {"body": "whole"})
    assert seen["ours, before"] == 0
    assert ours._get(QUEUE) == {"body": "whole"}
    with pytest.raises(Empty):
        ours._get(QUEUE)


def test_a_message_two_readers_want_goes_to_one(channels, tmp_path, monkeypatch):
    """Our reader claims a message by renaming it away before reading it: a second reader that
    listed the same file finds it gone and moves on, reading nothing twice."""
    ours, _ = channels
    ours._put(QUEUE, {"body": "once"})
    rename = os.rename
    taken: list[Any] = []

    def other_reader_first(source: str, target: str) -> None:
        if not taken:  # another reader claims it between our listing and our rename
            taken.append("claiming")
            taken[0] = ours._get(QUEUE)
        rename(source, target)

    monkeypatch.setattr(os, "rename", other_reader_first)
    with pytest.raises(Empty):
        ours._get(QUEUE)
    assert taken == [{"body": "once"}]
