"""Kept-alive connections are spread over gunicorn's workers (casino/api/balanced_worker.py)."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.e2e.conftest import _free_port

pytestmark = pytest.mark.e2e

REPOSITORY = Path(__file__).resolve().parents[2]
WORKER = "casino.api.balanced_worker.BalancedThreadWorker"


class Server(NamedTuple):
    port: int
    worker_pids: frozenset[str]


@contextmanager
def gunicorn(workers: int, threads: int) -> Iterator[Server]:
    port = _free_port()
    command = [
        sys.executable, "-m", "gunicorn", "tests.e2e.pid_app:app", "-k", WORKER,
        "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads),
        "--log-level", "warning",
    ]  # fmt: skip
    process = subprocess.Popen(command, cwd=REPOSITORY)
    try:
        deadline = time.monotonic() + 30
        served: set[str] = set()
        while len(served) < workers:  # every worker up and answering
            assert time.monotonic() < deadline, "gunicorn did not start its workers"
            assert process.poll() is None, "gunicorn exited"
            try:
                served.add(ask(new_connection(port), close=True))
            except OSError:
                time.sleep(0.05)
        while established_on(port):  # and every probe's connection let go again
            assert time.monotonic() < deadline, "gunicorn kept a closed connection"
            time.sleep(0.01)
        yield Server(port, frozenset(served))
    finally:
        for pid in served:  # none left stopped by a test
            os.kill(int(pid), signal.SIGCONT)
        process.terminate()
        process.wait(timeout=15)


def new_connection(port: int) -> http.client.HTTPConnection:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.connect()
    return connection


def established_on(port: int) -> int:
    """Connections the server side holds open on ``port`` (Linux, IPv4)."""
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    local = f":{port:04X}"
    return sum(1 for row in rows if row.split()[1].endswith(local) and row.split()[3] == "01")


def ask(connection: http.client.HTTPConnection, close: bool = False) -> str:
    connection.request("GET", "/", headers={"Connection": "close"} if close else {})
    response = connection.getresponse()
    assert response.status == 200
    return response.read().decode()


def pids_serving(port: int, clients: int) -> Counter[str]:
    """Connect ``clients`` at once, then ask each (twice, kept alive) who serves it."""
    connections = [new_connection(port) for _ in range(clients)]
    try:
        first = [ask(connection) for connection in connections]
        assert [ask(connection) for connection in connections] == first  # kept alive
        return Counter(first)
    finally:
        for connection in connections:
            connection.close()


@pytest.mark.parametrize("attempt", range(5))
def test_a_burst_of_connections_is_spread_one_per_thread(attempt: int) -> None:
    with gunicorn(workers=2, threads=2) as server:
        served = pids_serving(server.port, clients=4)
    assert sorted(served.values()) == [2, 2]


@pytest.mark.parametrize("attempt", range(3))
def test_every_worker_takes_a_connection_before_any_takes_a_second(attempt: int) -> None:
    with gunicorn(workers=4, threads=2) as server:
        served = pids_serving(server.port, clients=4)
    assert sorted(served.values()) == [1, 1, 1, 1]


def test_connections_beyond_every_thread_are_still_accepted() -> None:
    with gunicorn(workers=2, threads=2) as server:
        served = pids_serving(server.port, clients=7)
    assert sorted(served.values()) == [3, 4]


def test_a_sibling_late_to_its_turn_still_takes_the_connection() -> None:
    """The worker holding fewer connections takes the next one even when it wakes
    late: on a loaded machine it may not run for a while (a timed back-off of 10 ms
    let the busier worker take three of four connections)."""
    with gunicorn(workers=2, threads=2) as server:
        first = new_connection(server.port)
        holder = ask(first)
        (idle,) = server.worker_pids - {holder}
        os.kill(int(idle), signal.SIGSTOP)  # the machine's load, made certain
        try:
            second = new_connection(server.port)
            second.request("GET", "/")
            time.sleep(0.03)  # the idle worker misses 30 ms: thrice the old back-off
        finally:
            os.kill(int(idle), signal.SIGCONT)
        response = second.getresponse()
        assert response.read().decode() == idle
        first.close()
        second.close()


def test_a_stuck_sibling_does_not_keep_a_connection_waiting() -> None:
    """A sibling that does not take its turn at all (stopped here) loses the
    connection to the busier worker after at most MAX_DEFER_SECONDS."""
    with gunicorn(workers=2, threads=2) as server:
        first = new_connection(server.port)
        holder = ask(first)
        (idle,) = server.worker_pids - {holder}
        os.kill(int(idle), signal.SIGSTOP)
        try:
            second = new_connection(server.port)
            asked = time.monotonic()
            assert ask(second) == holder  # answered while the idle worker is stopped
            waited = time.monotonic() - asked
        finally:
            os.kill(int(idle), signal.SIGCONT)
        assert waited < 2  # MAX_DEFER_SECONDS, and the machine's load
        first.close()
        second.close()


REQUEST = b"GET / HTTP/1.1\r\nHost: test\r\n\r\n"
AHEAD = 16  # requests a pipelining client keeps waiting: however slow it is to read on


def read_answer(sock: socket.socket, buffer: bytearray) -> bytes:
    """One HTTP/1.1 answer's body off ``sock`` (``buffer`` keeps what came after it)."""
    while b"\r\n\r\n" not in buffer:
        read_more(sock, buffer)
    head, _, _ = bytes(buffer).partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    end = len(head) + 4 + length
    while len(buffer) < end:
        read_more(sock, buffer)
    body = bytes(buffer[len(head) + 4 : end])
    del buffer[:end]
    return body


def read_more(sock: socket.socket, buffer: bytearray) -> None:
    chunk = sock.recv(65536)
    assert chunk, "the server closed the connection"
    buffer += chunk


def test_a_connection_that_keeps_asking_leaves_its_thread_to_another() -> None:
    """A thread serves its connection's next request itself when it is already there,
    but not while another connection's request waits: with one thread, a client that
    always has its next request waiting (pipelined) must not starve a second client."""
    with gunicorn(workers=1, threads=1) as server:
        port = server.port
        busy = socket.create_connection(("127.0.0.1", port), timeout=10)
        # Connected only once busy is served back to back, and asking at once: a
        # connection that sat idle would hold the one thread itself (gunicorn waits up
        # to 5 s for a new connection's first request).
        patient = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        stop = threading.Event()
        answered_busy = 0

        def keep_asking() -> None:
            nonlocal answered_busy
            buffer = bytearray()
            busy.sendall(REQUEST * AHEAD)
            while not stop.is_set():
                busy.sendall(REQUEST)  # always AHEAD more wait while one is answered
                assert read_answer(busy, buffer).isdigit()
                answered_busy += 1

        asker = threading.Thread(target=keep_asking)
        asker.start()
        try:
            answers_reach(lambda: answered_busy, 50)  # back to back
            assert ask(patient).isdigit()  # starved, it would time out
            # and the busy one, which never stopped asking, is served on
            answers_reach(lambda: answered_busy, answered_busy + 50)
        finally:
            stop.set()
            asker.join(timeout=10)
            busy.close()
            patient.close()


def answers_reach(answered: Callable[[], int], count: int) -> None:
    deadline = time.monotonic() + 10
    while answered() < count:
        assert time.monotonic() < deadline, "the busy client was not served"
        time.sleep(0.001)
