"""How much memory the solver's table takes by default: a share of what this machine has available."""

from __future__ import annotations

SHARE = 4  # a quarter of MemAvailable: room for the rest of the machine (and other solves) beside it
CAP_MIB = 16_384  # past 16 GiB the largest boards solved here gain little
FALLBACK_MIB = 96  # where /proc/meminfo cannot be read (not Linux)
MIN_MIB = 16


def available_mib() -> int | None:
    """MemAvailable of /proc/meminfo in MiB, or None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def default_mib(available: int | None = None, free_lines: int = 128) -> int:
    """The table's default size: a quarter of the available memory, 16 MiB to 16 GiB, and no more than a
    position with ``free_lines`` could fill (2**(free lines + 1) entries of 24 bytes)."""
    available = available_mib() if available is None else available
    if available is None:
        return FALLBACK_MIB
    could_fill = (2 ** min(free_lines + 1, 40) * 24) >> 20
    return max(MIN_MIB, min(CAP_MIB, available // SHARE, could_fill))


RULE = f"1/{SHARE} of MemAvailable, {MIN_MIB}-{CAP_MIB} MiB, at most 2**(free lines + 1) entries"


RETROGRADE_SHARE = 3 / 4  # a retrograde pass takes exactly its positions' bytes, known before it starts, and gives
# them back when it ends: it may take more of the machine than a table that stays as long as the solve


def retrograde_mib(available: int | None = None) -> int:
    """The most a retrograde pass takes by default: three quarters of the available memory."""
    available = available_mib() if available is None else available
    return FALLBACK_MIB if available is None else max(MIN_MIB, int(available * RETROGRADE_SHARE))


RETROGRADE_RULE = "3/4 of MemAvailable"
