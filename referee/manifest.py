"""The bot manifest, ``bot.toml`` in a bot's folder, validated by pydantic.

    name = "greedy"                     # a safe identifier: a-z, 0-9, '-' and '_', 1–40 characters
    command = ["python3", "bot.py"]     # run in the bot's folder, as a list of arguments
    build = ["make"]                    # optional, run once in the folder before the first game
    transport = "zmq"                   # "zmq" (ZeroMQ over ipc://), "tcp" (ZeroMQ over loopback tcp://,
                                        # for implementations without ipc) or "stdio" (hexarena relays)
    language = "python"
    author = "..."                      # informational: a name's owner is who submitted it first
    description = "..."
    [limits]                            # optional: lower the organiser's limits (referee/limits.py Limits)
    memory_mb = 512                     # also cpu_seconds, processes, open_files, file_mb, tmp_mb (limits.NAMES)
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, field_validator

from hexarena.protocol.errors import ConfigError
from hexarena.protocol.validation import Style, describe_validation_error, plain_text
from hexarena.referee.limits import NAMES as LIMIT_NAMES

MANIFEST = "bot.toml"
MAX_MANIFEST_BYTES = 64 * 1024  # a bot.toml larger is refused before it is parsed
# the longest each field may be where a manifest is read (characters; a list: its words, and each word's length)
MAX_LENGTHS = {"name": 40, "language": 40, "author": 100, "description": 2000, "command": (64, 1000),
               "build": (64, 1000)}
LIMIT_MAX = 1 << 31  # a [limits] value (MiB, seconds, counts): more is no limit an OS takes, and true is not 1
NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,39}$"  # a bot's name, wherever one is given (manifest, remote:NAME)
STYLE = Style(unknown="unknown field {field!r}", missing="field {field!r} is missing",
              invalid="field {field!r}: {msg} (found {input!r})")


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN)

    @field_validator("name", mode="before")
    @classmethod
    def _lower_case(cls, value: object) -> object:
        if isinstance(value, str) and value != value.lower() and re.fullmatch(NAME_PATTERN, value.lower()):
            raise ValueError(f"bot names are lower case (a-z, 0-9, '-' and '_'): {value!r} would be {value.lower()!r}")
        return value
    command: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1)
    build: list[str] | None = None
    transport: Literal["zmq", "tcp", "stdio"] = "zmq"
    language: str = ""
    author: str = ""
    description: str = ""
    limits: dict[Literal[LIMIT_NAMES], Annotated[StrictInt, Field(gt=0, le=LIMIT_MAX)]] | None = None

    @field_validator("command", "build")
    @classmethod
    def _plain_words(cls, value: list[str] | None) -> list[str] | None:
        for word in value or ():
            plain_text(word)  # a NUL byte cannot reach exec; an escape would garble the bot's listing
        return value

    @field_validator("language", "author")
    @classmethod
    def _plain_line(cls, value: str) -> str:
        return plain_text(value)

    @field_validator("description")
    @classmethod
    def _plain_lines(cls, value: str) -> str:
        return plain_text(value, lines=True)


def load_manifest(folder: str | Path) -> Manifest:
    """Read and validate ``folder/bot.toml``; raise ConfigError with a one-line message."""
    path = Path(folder) / MANIFEST
    if Path(folder).is_file():
        raise ConfigError(f"{folder}: is a file, not a bot folder (give the folder that holds its {MANIFEST})")
    if not Path(folder).is_dir():
        raise ConfigError(f"{folder}: not a bot folder (no such directory)")
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_MANIFEST_BYTES + 1)
        if len(raw) > MAX_MANIFEST_BYTES:
            raise ConfigError(f"{path}: larger than {MAX_MANIFEST_BYTES // 1024} KB, the limit of a manifest; "
                              "keep long texts out of it")
        data = tomllib.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: missing (every bot folder needs a {MANIFEST} manifest)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    _check_lengths(data, path)
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, str(path), STYLE)) from None


def _check_lengths(data: dict, path: Path) -> None:
    """ConfigError (one line, the figure and the limit) for a field longer than ``MAX_LENGTHS`` allows. Checked
    where a manifest is read, not in the model: versions registered before the bound still load."""
    for field, bound in MAX_LENGTHS.items():
        value = data.get(field)
        if isinstance(value, str) and not isinstance(bound, tuple) and len(value) > bound:
            raise ConfigError(f"{path}: field {field!r} is {len(value):,} characters long; at most {bound:,} allowed")
        if isinstance(value, list) and isinstance(bound, tuple):
            words, word = bound
            if len(value) > words:
                raise ConfigError(f"{path}: field {field!r} has {len(value):,} words; at most {words} allowed")
            for item in value:
                if isinstance(item, str) and len(item) > word:
                    raise ConfigError(f"{path}: field {field!r} has a word of {len(item):,} characters; at most "
                                      f"{word:,} allowed")
