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
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import NamedTuple

import pytest

from casino.api.worker_roster import live_parent
from tests.e2e.conftest import _free_port

pytestmark = pytest.mark.e2e

REPOSITORY = Path(__file__).resolve().parents[2]
WORKER = "casino.api.balanced_worker.BalancedThreadWorker"


class Server(NamedTuple):
    port: int
    worker_pids: frozenset[str]
    arbiter: int


@contextmanager
def gunicorn(workers: int, threads: int, load_seconds: float = 0) -> Iterator[Server]:
    port = _free_port()
    command = [
        sys.executable, "-m", "gunicorn", "tests.e2e.pid_app:app", "-k", WORKER,
        "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads),
        "--log-level", "warning",
    ]  # fmt: skip
    environment = {**os.environ, "PID_APP_LOAD_SECONDS": str(load_seconds)}
    process = subprocess.Popen(command, cwd=REPOSITORY, env=environment)
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
        yield Server(port, frozenset(served), process.pid)
    finally:
        for pid in served:  # none left stopped by a test (or killed by one)
            with suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGCONT)
        process.terminate()
        process.wait(timeout=15)


def new_connection(port: int) -> http.client.HTTPConnection:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.connect()
    return connection


def children_of(parent: int) -> set[int]:
    """The live processes whose parent is ``parent`` (Linux)."""
    pids = (int(folder.name) for folder in Path("/proc").glob("[0-9]*"))
    return {pid for pid in pids if live_parent(pid) == parent}


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
            time.sleep(0.02)  # the idle worker misses 20 ms: the old back-off and grace were 15
        finally:
            os.kill(int(idle), signal.SIGCONT)
        response = second.getresponse()
        assert response.read().decode() == idle
        first.close()
        second.close()


def test_a_stuck_sibling_does_not_keep_connections_waiting() -> None:
    """A sibling that does not take its turn at all (stopped here) loses the waiting
    connections to the busier worker after MAX_DEFER_SECONDS (0.1 s): all of them at
    once, not one per 0.1 s."""
    with gunicorn(workers=2, threads=2) as server:
        first = new_connection(server.port)
        holder = ask(first)
        (idle,) = server.worker_pids - {holder}
        os.kill(int(idle), signal.SIGSTOP)
        try:
            answers = ask_at_once(server.port, clients=8)
        finally:
            os.kill(int(idle), signal.SIGCONT)
        first.close()
    assert [pid for pid, _ in answers] == [holder] * 8  # answered while it is stopped
    assert max(waited for _, waited in answers) < 0.5  # one at a time would be >= 0.8


def ask_at_once(port: int, clients: int) -> list[tuple[str, float]]:
    """Connect ``clients`` at once; who answered each, and how long each waited."""
    answers: list[tuple[str, float]] = []
    lock = threading.Lock()

    def one() -> None:
        asked = time.monotonic()
        connection = new_connection(port)
        try:
            pid = ask(connection)
        finally:
            connection.close()
        with lock:
            answers.append((pid, time.monotonic() - asked))

    threads = [threading.Thread(target=one) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(answers) == clients, "a connection was not answered"
    return answers


def test_a_sibling_loading_its_application_is_not_waited_for() -> None:
    """A worker counts for its siblings only once it can accept: a replacement still
    loading the application (5 s here) would make the busier worker leave each new
    connection to it for MAX_DEFER_SECONDS."""
    with gunicorn(workers=2, threads=2, load_seconds=5) as server:
        first = new_connection(server.port)
        holder = ask(first)
        (other,) = server.worker_pids - {holder}
        os.kill(int(other), signal.SIGKILL)
        deadline = time.monotonic() + 10
        while not children_of(server.arbiter) - {int(holder)}:  # forked, and loading
            assert time.monotonic() < deadline, "the arbiter started no replacement"
            time.sleep(0.01)
        started = time.monotonic()
        kept = [new_connection(server.port) for _ in range(8)]
        assert [ask(connection) for connection in kept] == [holder] * 8
        took = time.monotonic() - started
        for connection in [first, *kept]:
            connection.close()
    assert took < 0.5  # waiting for the replacement would take >= 0.8


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
