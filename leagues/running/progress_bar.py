"""The progress display's bar on a terminal (``progress.ProgressDisplay``): rich, imported only there."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.text import Text


def two_line_bar(league: str) -> TwoLineProgress:
    """The league's bar on stderr: games done of the total, rate (the task's ``rate`` field), time left."""
    return TwoLineProgress(TextColumn(f"[bold]{league}"), BarColumn(bar_width=20), MofNCompleteColumn(),
                           TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                           console=Console(file=sys.stderr), transient=False)


class TwoLineProgress(Progress):
    """A bar line, and under it one line of text (``below``), cut at the console's width rather than the bar's
    fields each shrunk to "…"."""

    below = ""

    def get_renderables(self):
        yield self.make_tasks_table(self.tasks)
        if self.below:
            yield Text(self.below, no_wrap=True, overflow="ellipsis")
