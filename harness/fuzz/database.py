"""Hypothesis example databases named by URL, so runs and machines share what their searches find.

* ``PATH`` or ``dir:PATH``: a directory database (``DirectoryBasedExampleDatabase``), safe for
  concurrent processes of one machine;
* ``redis://HOST:PORT/DB`` (or ``rediss://``): Hypothesis's Redis database
  (``hypothesis.extra.redis.RedisExampleDatabase``), shared between machines; it needs the
  ``redis`` package (``pip install 'vnext-conformance[fuzz]'``).

A run's database is its own directory database under the cache directory, multiplexed with the
``--database`` ones; ``--database-read-only`` wraps those in ``ReadOnlyDatabase``, so a CI run
replays what fuzzing found and never changes the shared store.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    MultiplexedDatabase,
    ReadOnlyDatabase,
)

__all__ = [
    "REDIS_KEY_PREFIX",
    "DatabaseKind",
    "DatabaseUrl",
    "DatabaseUnavailable",
    "example_database",
    "open_database",
    "parse_database_url",
]

#: Keys of this suite's entries in a shared Redis (Hypothesis's default prefix is ``hypothesis-example:``).
REDIS_KEY_PREFIX: Final = b"vnext-conformance:"
_REDIS_SCHEMES: Final = ("redis", "rediss")


class DatabaseKind(enum.StrEnum):
    DIRECTORY = "directory"
    REDIS = "redis"


class DatabaseUnavailable(ValueError):
    """A database URL that cannot be opened here (a missing package, an unreachable server)."""


@dataclass(frozen=True, slots=True)
class DatabaseUrl:
    """One ``--database`` value: its kind and where it is (a directory path or the Redis URL)."""

    kind: DatabaseKind
    location: str

    def __post_init__(self) -> None:
        if not self.location:
            raise ValueError("a database URL needs a location")

    @property
    def redacted(self) -> str:
        """The URL without a password, for messages."""
        if self.kind is DatabaseKind.DIRECTORY:
            return self.location
        parts = urlsplit(self.location)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{host}{port}{parts.path}"


def parse_database_url(text: str) -> DatabaseUrl:
    """``redis://HOST:PORT/DB`` | ``rediss://...`` | ``dir:PATH`` | ``PATH``; ``ValueError`` otherwise."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("empty --database value")
    scheme, sep, rest = stripped.partition(":")
    if sep and scheme in _REDIS_SCHEMES:
        parts = urlsplit(stripped)
        if not parts.hostname:
            raise ValueError(f"redis database URL needs a host: {stripped!r} (redis://HOST:PORT/DB)")
        try:
            parts.port  # noqa: B018 - validates the port
        except ValueError:
            raise ValueError(f"redis database URL has a bad port: {stripped!r}") from None
        number = parts.path.strip("/")
        if number and not number.isdigit():
            raise ValueError(f"redis database number must be a whole number, got {number!r} in {stripped!r}")
        return DatabaseUrl(DatabaseKind.REDIS, stripped)
    if sep and scheme == "dir":
        if not rest:
            raise ValueError("dir: database needs a path (dir:PATH)")
        return DatabaseUrl(DatabaseKind.DIRECTORY, rest)
    if sep and "/" not in scheme and len(scheme) > 1 and rest.startswith("//"):
        raise ValueError(f"unknown database URL scheme {scheme!r} in {stripped!r}; use a directory or redis://")
    return DatabaseUrl(DatabaseKind.DIRECTORY, stripped)


def open_database(url: DatabaseUrl, *, check: bool = False) -> ExampleDatabase:
    """The Hypothesis database ``url`` names; ``check`` pings a Redis server first.

    ``DatabaseUnavailable`` when the ``redis`` package is missing or (with ``check``) the server
    does not answer.
    """
    if url.kind is DatabaseKind.DIRECTORY:
        return DirectoryBasedExampleDatabase(url.location)
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError:
        raise DatabaseUnavailable(
            f"{url.redacted}: the redis package is not installed (pip install 'vnext-conformance[fuzz]')"
        ) from None
    client = redis.Redis.from_url(url.location)
    if check:
        try:
            client.ping()
        except redis.RedisError as exc:
            raise DatabaseUnavailable(f"{url.redacted}: the Redis server does not answer ({exc})") from None
    return RedisExampleDatabase(client, key_prefix=REDIS_KEY_PREFIX)


def example_database(
    local: Path | None, shared: Sequence[DatabaseUrl] = (), *, read_only: bool = False, check: bool = False
) -> ExampleDatabase | None:
    """The database a run uses: ``local`` (its own directory) multiplexed with ``shared``.

    ``read_only`` reads the shared databases through ``ReadOnlyDatabase``; ``None`` when there is
    no database at all.
    """
    databases: list[ExampleDatabase] = []
    if local is not None:
        databases.append(DirectoryBasedExampleDatabase(str(local)))
    for url in shared:
        database = open_database(url, check=check)
        databases.append(ReadOnlyDatabase(database) if read_only else database)
    if not databases:
        return None
    if len(databases) == 1:
        return databases[0]
    return MultiplexedDatabase(*databases)
