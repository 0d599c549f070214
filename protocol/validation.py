"""One wording of pydantic's ``ValidationError`` for every floor: the first problem, on one line.

    describe_validation_error(error, "bots/x/bot.toml", MANIFEST_STYLE)
        → "bots/x/bot.toml: field 'name' is missing"

A ``Style`` says how one kind of input words its three kinds of problem (an unknown field, a missing
one, a value that is not allowed); the caller that owns the input defines it. The templates are
filled with ``field`` (the field's path), ``msg`` (pydantic's message, without the ``Value error, ``
of a validator's own), ``input`` (the value found), ``got`` (``", got <input>"`` when pydantic's
message does not say what it found and the value is short: a string or a number) and ``allowed``
(the fields allowed where an unknown one was found, if the caller can tell).

pydantic itself is not imported here: the error is only read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


@dataclass(frozen=True)
class Style:
    """The templates of one kind of input; ``unknown`` and ``missing`` default to ``invalid``."""

    invalid: str = "{field}: {msg}"
    unknown: str | None = None
    missing: str | None = None
    toml_path: bool = False  # fields as ``boards[0].size`` (TOML) rather than ``boards.0.size``


def describe_validation_error(
    error: ValidationError,
    source: str,
    style: Style = Style(),
    *,
    line_of: Callable[[tuple], int | None] | None = None,
    allowed: Callable[[tuple], Iterable[str]] | None = None,
) -> str:
    """``source[:line]: <the first problem, worded by style>``; ``line_of`` finds a field's line in the text."""
    first = error.errors()[0]
    loc = tuple(first["loc"])
    line = line_of(loc) if line_of is not None else None
    where = f"{source}:{line}" if line else source
    found = first.get("input")
    got = f", got {found!r}" if first["type"] != "value_error" and isinstance(found, str | int | float) else ""
    template = {"extra_forbidden": style.unknown, "missing": style.missing}.get(first["type"]) or style.invalid
    text = template.format(field=field_path(loc, toml=style.toml_path), msg=first["msg"].removeprefix("Value error, "),
                           input=found, got=got, allowed=", ".join(allowed(loc)) if allowed is not None else "")
    return f"{where}: {text}"


def field_path(loc: tuple, *, toml: bool = False) -> str:
    """``boards.0.size``, or ``boards[0].size`` with ``toml``; ``(top level)`` for the model itself."""
    if toml:
        path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")
    else:
        path = ".".join(str(part) for part in loc)
    return path or "(top level)"


def plain_text(value: str, *, lines: bool = False) -> str:
    """``value`` if it holds no control character (NUL, escape, DEL, C1...; with ``lines``, tab and newline
    are allowed); ValueError saying which otherwise. For text fields shown to people or passed to exec."""
    allowed = "\t\n" if lines else ""
    for char in value:
        if (ord(char) < 32 or 0x7F <= ord(char) < 0xA0) and char not in allowed:
            raise ValueError(f"holds the control character {char!r}: give plain text"
                             + (" (tabs and newlines are allowed)" if lines else ""))
    return value
