"""The stdio bridge: bots in languages without a ZeroMQ binding speak protocol v1 on stdin/stdout.

A bot whose manifest says ``transport = "stdio"`` is started like any other bot (same
folder, environment, process group, limits and stderr log), but with pipes on its
standard input and output. A relay thread in the referee's process connects one
DEALER socket to the referee's endpoint for it and copies

* every line the bot writes on stdout (without its ``\\n``; blank lines are skipped)
  to the referee as one message, and
* every message from the referee to the bot's stdin as one line.

So the referee sees an ordinary bot: the same HELLO with the token from
``HEXARENA_TOKEN``, the same clocks and the same faults. The bot process is still the
referee's child, so a bridged bot that dies is ``crashed`` and one that hangs is
``timeout``, exactly as a native one. The relay ends when the bot's stdout closes.
A thread, not a relay process: no second interpreter to start, and one pipe hop fewer.

Its memory is bounded whatever the bot writes: a line longer than the protocol's limit is
passed on once, cut just past the limit (the referee refuses it as too long, §1.2), and the
rest up to the next newline is dropped; at most ``QUEUE`` messages wait to be sent.
"""

from __future__ import annotations

import os
import subprocess
import threading

import zmq

from hexarena.protocol import codec

QUEUE = 16  # messages waiting for the referee (ZeroMQ's send high-water mark; then the relay waits)

_context: zmq.Context | None = None
_lock = threading.Lock()


def _shared_context() -> zmq.Context:
    """One ZeroMQ context for every relay of this process (a context costs an I/O thread)."""
    global _context
    with _lock:
        if _context is None:
            _context = zmq.Context()
        return _context


class Bridge(threading.Thread):
    """Relays one stdio bot's lines to and from ``endpoint``; owns the bot's stdin and stdout pipes."""

    def __init__(self, popen: subprocess.Popen, endpoint: str) -> None:
        super().__init__(name=f"hexarena-bridge-{popen.pid}", daemon=True)
        self.endpoint = endpoint
        self._to_bot = popen.stdin.fileno()
        self._from_bot = popen.stdout.fileno()
        self._pipes = (popen.stdin, popen.stdout)
        self.read_any = False  # whether a byte ever came from the bot's stdout (a beginner's bot often never flushes)
        popen.stdin = popen.stdout = None  # the process's output log reads stderr only
        self.socket = _shared_context().socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 1000)  # a last line written before exit still arrives
        self.socket.setsockopt(zmq.SNDHWM, QUEUE)
        self.socket.connect(endpoint)

    @classmethod
    def attach(cls, popen: subprocess.Popen, endpoint: str) -> Bridge:
        bridge = cls(popen, endpoint)
        bridge.start()
        return bridge

    def run(self) -> None:
        poller = zmq.Poller()
        poller.register(self.socket, zmq.POLLIN)
        poller.register(self._from_bot, zmq.POLLIN)
        pending = b""
        skipping = False  # inside a line that was too long: dropped up to its newline
        writable = True
        try:
            while True:
                ready = dict(poller.poll())
                if self.socket in ready:
                    writable = self._to_stdin(writable)
                if self._from_bot in ready:
                    chunk = os.read(self._from_bot, 65536)
                    if not chunk:
                        return
                    self.read_any = True
                    *lines, pending = (pending + chunk).split(b"\n")
                    if skipping and lines:  # the overlong line ended
                        lines, skipping = lines[1:], False
                    if skipping:
                        pending = b""
                    elif len(pending) > codec.MAX_BYTES:  # no newline in sight: pass it on, cut, once
                        lines.append(pending[:codec.MAX_BYTES + 1])
                        pending, skipping = b"", True
                    for line in lines:
                        line = line.removesuffix(b"\r")
                        if line.strip():
                            self.socket.send(line[:codec.MAX_BYTES + 1])
        except (OSError, zmq.ZMQError):
            return  # the bot or the referee went away: the referee sees the exit or the silence
        finally:
            self.socket.close()
            for pipe in self._pipes:
                pipe.close()

    def _to_stdin(self, writable: bool) -> bool:
        """Copy every waiting message to the bot's stdin; False once the bot no longer reads it."""
        while True:
            try:
                message = self.socket.recv(zmq.NOBLOCK)
            except zmq.Again:
                return writable
            if not writable:
                continue
            data = memoryview(message + b"\n")
            try:
                while data:
                    data = data[os.write(self._to_bot, data):]
            except OSError:  # a closed stdin (EPIPE): the bot's later silence is its fault
                writable = False
