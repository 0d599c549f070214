"""A bot's resource limits: the one type that knows their names, defaults, rlimits and sandbox arguments.

    limits = Limits().within(manifest.limits)    # the organiser's cap, lowered by the bot's ``[limits]``
    limits.prlimit_args()                         # ["prlimit", "--core=0", "--as=...", ...]: inside the sandbox
    limits.rlimits(confined=False)                # [(RLIMIT_CORE, 0), ...]: set right after an unconfined launch
    limits.tmp_bytes                              # the sandbox's private /tmp (bwrap's --size, namespaces.py's tmpfs)

``NAMES`` are what a manifest's ``[limits]`` may set (``referee/manifest.py`` validates against them);
``RLIMITS`` is the one table of which of them is which kernel limit, and in what unit. Standard library only:
the manifest, the sandbox and the launch all import it.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass, fields, replace

MiB = 1024 * 1024

# field → (prlimit's option, the kernel's resource, bytes per unit); in the order prlimit is given them
RLIMITS: dict[str, tuple[str, int, int]] = {
    "memory_mb": ("as", resource.RLIMIT_AS, MiB),
    "processes": ("nproc", resource.RLIMIT_NPROC, 1),
    "open_files": ("nofile", resource.RLIMIT_NOFILE, 1),
    "cpu_seconds": ("cpu", resource.RLIMIT_CPU, 1),
    "file_mb": ("fsize", resource.RLIMIT_FSIZE, MiB),
}


@dataclass(frozen=True)
class Limits:
    """Per-bot resource limits, set inside the sandbox before the bot's first instruction; None leaves one alone.

    The organiser's values (a referee's ``RefereeSettings.limits``) are the cap: a manifest's ``[limits]`` may
    lower them (``within``). ``memory_mb``, ``processes`` and ``cpu_seconds`` bound the whole bot too, all its
    processes together: its cgroup (``referee/cgroups.py``) or the referee's watchdog (``referee/watchdog.py``).
    """

    memory_mb: int | None = 4096  # RLIMIT_AS per process (virtual memory: JVM or node bots may need more)
    cpu_seconds: int | None = None  # CPU time over the bot's lifetime, across games: whole bot, and RLIMIT_CPU
    processes: int | None = 32  # the bot's processes and threads (pids.max or the watchdog; RLIMIT_NPROC above)
    open_files: int | None = 64  # RLIMIT_NOFILE per process: bounds the connections a bot can open to the referee
    file_mb: int | None = 256  # RLIMIT_FSIZE: the largest file a bot (or a build) may write
    tmp_mb: int = 64  # the sandbox's private /tmp (tmpfs)
    log_bytes: int = 256 * 1024  # output kept per game log; the rest is counted, not written (the referee's, not a bot's)

    @classmethod
    def none(cls, tmp_mb: int = 1) -> Limits:
        """No kernel limit at all (the sandbox probe's)."""
        return cls(**dict.fromkeys(RLIMITS), tmp_mb=tmp_mb)

    def within(self, requested: dict[str, int] | None) -> Limits:
        """These limits lowered to what a manifest asks for (never raised above the organiser's)."""
        changes = {name: value if getattr(self, name) is None else min(value, getattr(self, name))
                   for name, value in (requested or {}).items()}
        return replace(self, **changes)

    @property
    def tmp_bytes(self) -> int:
        return self.tmp_mb * MiB

    def rlimits(self, confined: bool = True) -> list[tuple[int, int]]:
        """``(resource, value)`` of each limit set, no core dumps first. Unconfined, no RLIMIT_NPROC: it counts
        every process of the organiser's user, not the bot's."""
        found = [(resource.RLIMIT_CORE, 0)]
        for name, (_, kind, unit) in RLIMITS.items():
            value = getattr(self, name)
            if value is not None and (confined or kind != resource.RLIMIT_NPROC):
                found.append((kind, value * unit))
        return found

    def prlimit_args(self) -> list[str]:
        """util-linux ``prlimit``'s command line (without ``--`` and the command) for these limits."""
        args = ["prlimit", "--core=0"]
        for name, (option, _, unit) in RLIMITS.items():
            value = getattr(self, name)
            if value is not None:
                args.append(f"--{option}={value * unit}")
        return args


# what a manifest's [limits] may set: every limit but the referee's own log cap, in the order of the fields
NAMES: tuple[str, ...] = tuple(field.name for field in fields(Limits) if field.name != "log_bytes")
