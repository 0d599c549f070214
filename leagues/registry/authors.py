"""The authors who may write to ``hexarena serve``, and their tokens.

    token = add(ws, "alice")            a new author: a random token, returned once, stored only as its SHA-256
    add(ws, "org", admin=True)          the organiser: may also start league runs (POST /api/leagues/NAME/run)
    who = authenticate(ws, token)       the Author a token belongs to, or None (unknown, or revoked)
    revoke(ws, "alice")                 the token stops working at once; the author's bots stay theirs

An author's name is who owns the bot names they upload (``hexarena.leagues.registry.submit``: a name belongs to its first
submitter), so it follows the bot name's rules and may not be the reference bots' author. A token is never
stored: the table keeps its SHA-256, and ``authenticate`` compares digests in constant time
(``hmac.compare_digest``) against every valid author's, so neither the lookup nor the comparison depends
on how much of a guess was right.

This module owns the rows of the ``authors`` table (layout: ``hexarena.leagues.workspace.schema``, version 3).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from hexarena.leagues.registry.reference import REFERENCE_AUTHOR
from hexarena.leagues.workspace.home import Workspace
from hexarena.protocol.errors import ConfigError
from hexarena.referee.manifest import NAME_PATTERN

TOKEN_BYTES = 32  # secrets.token_urlsafe(32): 43 characters, 256 bits


@dataclass(frozen=True)
class Author:
    name: str
    admin: bool
    created: str
    revoked: str | None


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def add(ws: Workspace, name: str, *, admin: bool = False) -> str:
    """Register a new author and return their token (shown once: only its SHA-256 is kept).
    ConfigError for a name that breaks the rules, is reserved, or exists already."""
    if not re.fullmatch(NAME_PATTERN, name):
        raise ConfigError(f"author name {name!r}: use 1-40 lower-case letters, digits, '-' or '_', "
                          "starting with a letter or digit")
    if name == REFERENCE_AUTHOR:
        raise ConfigError(f"author name {name!r} is reserved: it owns the reference bots; choose another")
    token = secrets.token_urlsafe(TOKEN_BYTES)
    with ws.transaction() as db:
        if db.execute("SELECT 1 FROM authors WHERE name = ?", (name,)).fetchone():
            raise ConfigError(f"author {name!r} exists already (see 'hexarena authors list'); choose another name")
        db.execute("INSERT INTO authors (name, token_sha256, admin, created) VALUES (?, ?, ?, ?)",
                   (name, digest(token), int(admin), _now()))
    return token


def list_authors(ws: Workspace) -> list[Author]:
    return [Author(r["name"], bool(r["admin"]), r["created"], r["revoked"])
            for r in ws.db.execute("SELECT name, admin, created, revoked FROM authors ORDER BY name")]


def revoke(ws: Workspace, name: str) -> bool:
    """Revoke the author's token; False if it was revoked already. ConfigError for an unknown author."""
    with ws.transaction() as db:
        if not db.execute("SELECT 1 FROM authors WHERE name = ?", (name,)).fetchone():
            known = ", ".join(a.name for a in list_authors(ws)[:8]) or "none yet"
            raise ConfigError(f"unknown author {name!r} (authors: {known})")
        changed = db.execute("UPDATE authors SET revoked = ? WHERE name = ? AND revoked IS NULL", (_now(), name))
        return changed.rowcount == 1


def authenticate(ws: Workspace, token: str) -> Author | None:
    """The valid (not revoked) author whose token this is, or None. Compares against every valid author's
    digest, without stopping at a match: the time taken does not tell which digest, if any, was close."""
    wanted = digest(token).encode()
    found = None
    for row in ws.db.execute("SELECT name, token_sha256, admin, created FROM authors WHERE revoked IS NULL"):
        if hmac.compare_digest(wanted, row["token_sha256"].encode()):
            found = Author(row["name"], bool(row["admin"]), row["created"], None)
    return found


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
