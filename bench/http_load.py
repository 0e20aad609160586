"""Full 6-seat rounds over HTTP against the API under gunicorn, with K table clients.

Each client is a table system with its own table and API key: it opens a round, places
six wagers in one batch request and deals, again and again, on one keep-alive
connection. Figures per K: rounds and wagers per second, p50/p99 latency per endpoint,
and the CPU each kind of process (gunicorn, Postgres, this load generator) spent per
round, which says where the time goes even on a day the machine runs slow, and the
cores each gunicorn worker used (how evenly the connections were spread). The
baseline, measured in the same run at the same K, is GET /healthz: what the server and
framework cost with no work behind them. Goal on 2 cores: at least 150 rounds per
second with the p99 deal latency under 50 ms.

    .venv/bin/python bench/http_load.py [--seconds 10] [--clients 1,4,16] [--workers N]
        [--threads N] [--repeat 3]

Uses DATABASE_URL's server (a fresh database) or an embedded Postgres.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import fresh_database

from casino.api import gunicorn_config
from casino.app.actors import Role
from casino.app.keys import KeyStore
from casino.db.connection import create_pool
from casino.embedded_redis import start_embedded_redis, stop_embedded_redis

SEATS = 6
GOAL_ROUNDS = 150
GOAL_DEAL_P99_MS = 50.0


class Client:
    """One table system's keep-alive connection. It reads only what it needs (the round
    id of a new round): the load generator shares the machine's two cores with the
    service, and every answer it parses for nothing is CPU the service does not get."""

    def __init__(self, port: int, key: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: object = None) -> tuple[int, Any]:
        status, data = self.send(method, path, None if body is None else json.dumps(body))
        return status, json.loads(data) if data else None

    def send(self, method: str, path: str, payload: bytes | str | None) -> tuple[int, bytes]:
        self.connection.request(method, path, body=payload, headers=self.headers)
        response = self.connection.getresponse()
        return response.status, response.read()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(
    url: str, redis_url: str, workers: int, threads: int
) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    environment = dict(os.environ, DATABASE_URL=url, REDIS_URL=redis_url)
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"), "casino.api.wsgi:app",
            "--config", "python:casino.api.gunicorn_config",  # as deployed, but for:
            "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
            "--threads", str(threads), "--log-level", "warning",
        ],
        env=environment,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        try:
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            probe.request("GET", "/healthz")
            if probe.getresponse().status == 200:
                return server, port
        except OSError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            server.kill()
            raise RuntimeError("the API did not come up")
        time.sleep(0.1)


def set_up_table(admin: Client, keys: KeyStore, index: int) -> tuple[str, str, list[str]]:
    table_id = f"bench-{index}-{uuid.uuid4().hex[:6]}"
    status, body = admin.call("POST", "/v1/tables", {
        "table_id": table_id, "name": table_id, "currency": "EUR", "seats": SEATS,
        "main_paytable": 1, "doubles_paytable": 1, "main_min": 100, "main_max": 100_000,
        "doubles_min": 100, "doubles_max": 10_000,
    })  # fmt: skip
    assert status == 201, body
    players = [f"{table_id}-p{seat}" for seat in range(1, SEATS + 1)]
    for player in players:
        status, body = admin.call(
            "POST", f"/v1/players/{player}/deposits",
            {"currency": "EUR", "amount": 10**11, "reference": "bench"},
        )  # fmt: skip
        assert status == 201, body
    return table_id, keys.create(Role.TABLE, [table_id]).secret, players


Latencies = dict[str, list[float]]


def play(client: Client, table_id: str, players: list[str], until: float, out: Latencies) -> int:
    rounds = 0
    wagers = json.dumps({"wagers": [
        {"seat": seat, "player_id": player, "main": 500, "doubles": 100}
        for seat, player in enumerate(players, start=1)
    ]}).encode()  # fmt: skip
    open_body = json.dumps({"client_seed": "bench"}).encode()
    while time.monotonic() < until:
        opened = timed(client, out, "open round", f"/v1/tables/{table_id}/rounds", open_body)
        round_path = f"/v1/rounds/{json.loads(opened)['round_id']}"
        timed(client, out, "place 6 wagers", f"{round_path}/wagers", wagers)
        timed(client, out, "deal", f"{round_path}/deal", b"{}")
        rounds += 1
    return rounds


def timed(client: Client, out: Latencies, name: str, path: str, body: bytes) -> bytes:
    start = time.perf_counter()
    status, answer = client.send("POST", path, body)
    out[name].append(time.perf_counter() - start)
    assert status in (200, 201) and answer, (name, status, answer)
    return answer


def healthz(client: Client, table_id: str, players: list[str], until: float, out: Latencies) -> int:
    count = 0
    while time.monotonic() < until:
        start = time.perf_counter()
        status, _ = client.send("GET", "/healthz", None)
        out["GET /healthz"].append(time.perf_counter() - start)
        assert status == 200
        count += 1
    return count


def run_clients(
    port: int,
    tables: list[tuple[str, str, list[str]]],
    seconds: float,
    work: Callable[[Client, str, list[str], float, Latencies], int],
) -> tuple[int, Latencies, float]:
    latencies: Latencies = defaultdict(list)
    counts = [0] * len(tables)
    barrier = threading.Barrier(len(tables) + 1)

    def client_loop(index: int) -> None:
        table_id, key, players = tables[index]
        client = Client(port, key)
        local: Latencies = defaultdict(list)
        barrier.wait()
        counts[index] = work(client, table_id, players, time.monotonic() + seconds, local)
        for name, values in local.items():
            latencies[name].extend(values)

    threads = [threading.Thread(target=client_loop, args=(i,)) for i in range(len(tables))]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    return sum(counts), latencies, time.perf_counter() - start


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000


def processes() -> Iterator[tuple[int, str, list[str], float]]:
    """Every process, from /proc (Linux): its pid, command name, the fields of its stat
    after the name, and the CPU time (user + system) it has used so far."""
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():  # self, thread-self, and the rest of /proc
            continue
        try:
            stat = (entry / "stat").read_text()
        except (OSError, ValueError):
            continue
        name, fields = stat[stat.find("(") + 1 : stat.rfind(")")], stat[stat.rfind(")") + 2 :]
        parts = fields.split()
        yield int(entry.name), name, parts, (int(parts[11]) + int(parts[12])) / tick


def cpu_seconds(names: tuple[str, ...]) -> dict[str, float]:
    """CPU time used so far by the processes of each command name: where a round's work
    goes, whatever the machine's speed that day."""
    used = dict.fromkeys(names, 0.0)
    for _, name, _, seconds in processes():
        if name in used:
            used[name] += seconds
    return used


SERVER_PROCESSES = ("gunicorn", "postgres")


def worker_cpu_seconds(server_pid: int) -> dict[int, float]:
    """CPU time used so far by each gunicorn worker (the children of ``server_pid``):
    how evenly the clients' kept-alive connections were spread over them."""
    return {pid: seconds for pid, _, parts, seconds in processes() if parts[1] == str(server_pid)}


def machine_ticks() -> tuple[int, int]:
    """The machine's CPU time so far, from /proc/stat: (busy, all), in clock ticks. When
    busy nears all during the rounds, the cores were the limit, not waiting."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields[:8]) - idle, sum(fields[:8])  # up to steal; guest time is in user


def report(
    server: subprocess.Popen[bytes],
    port: int,
    tables: list[tuple[str, str, list[str]]],
    seconds: float,
    runs: int,
) -> bool:
    """K clients: baseline and rounds, ``runs`` times each, alternating; whether the goal
    was met."""
    baseline_rates: list[float] = []
    round_rates: list[float] = []
    latency: Latencies = defaultdict(list)
    cpu = dict.fromkeys((*SERVER_PROCESSES, "load generator"), 0.0)
    spreads: list[str] = []
    busy: list[str] = []
    played = 0
    for _ in range(runs):
        done, _, base_seconds = run_clients(port, tables, seconds, healthz)
        baseline_rates.append(done / base_seconds)
        before, own = cpu_seconds(SERVER_PROCESSES), time.process_time()
        workers_before = worker_cpu_seconds(server.pid)
        machine_before = machine_ticks()
        rounds, run_latency, play_seconds = run_clients(port, tables, seconds, play)
        machine_after = machine_ticks()
        after = cpu_seconds(SERVER_PROCESSES)
        ticks = [a - b for a, b in zip(machine_after, machine_before, strict=True)]
        busy.append(f"{ticks[0] / max(ticks[1], 1):.0%}")
        workers_after = worker_cpu_seconds(server.pid)
        spreads.append(" + ".join(
            f"{(workers_after[pid] - workers_before.get(pid, 0.0)) / play_seconds:.2f}"
            for pid in sorted(workers_after)
        ))  # fmt: skip
        cpu["load generator"] += time.process_time() - own
        for name in SERVER_PROCESSES:
            cpu[name] += after[name] - before[name]
        played += rounds
        round_rates.append(rounds / play_seconds)
        for name, values in run_latency.items():
            latency[name].extend(values)
    rate = statistics.median(round_rates)
    print(f"\nK = {len(tables):>2} clients ({runs} runs of {seconds:.0f} s)")
    print(f"  baseline GET /healthz: median {statistics.median(baseline_rates):8,.0f} req/s")
    print(
        f"  rounds: median {rate:6,.1f}/s (runs: "
        f"{', '.join(f'{r:,.1f}' for r in round_rates)})   wagers: {rate * SEATS:,.0f}/s"
    )
    for name in ("open round", "place 6 wagers", "deal"):
        values = latency[name]
        print(
            f"  {name:<15} p50 {percentile(values, 0.5):6.1f} ms   "
            f"p99 {percentile(values, 0.99):6.1f} ms   ({len(values)} requests, all runs)"
        )
    print(f"  cores used by each gunicorn worker, per run: {'; '.join(spreads)}")
    print(f"  machine's cores busy (all processes), per run: {', '.join(busy)}")
    print(
        "  CPU per round: "
        + ", ".join(f"{name} {used / max(played, 1) * 1000:.1f} ms" for name, used in cpu.items())
        + " (postgres: every server of that name on the machine)"
    )
    deal_p99 = percentile(latency["deal"], 0.99)
    met = rate >= GOAL_ROUNDS and deal_p99 < GOAL_DEAL_P99_MS
    print(
        f"  goal >= {GOAL_ROUNDS} rounds/s with p99 deal < {GOAL_DEAL_P99_MS:.0f} ms: "
        f"{'met' if met else 'missed'}"
    )
    return met


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", default="1,4,16")
    parser.add_argument(
        "--workers", type=int, default=gunicorn_config.workers,
        help="gunicorn worker processes (default: as deployed, two per core, at most 4)",
    )  # fmt: skip
    parser.add_argument(
        "--threads", type=int, default=gunicorn_config.threads,
        help="threads per worker (default: as deployed)",
    )  # fmt: skip
    parser.add_argument(
        "--repeat", type=int, default=3,
        help="runs per K, baseline and rounds alternating (a 2-core machine is noisy: the "
        "median is the figure, the range shows the noise)",
    )  # fmt: skip
    args = parser.parse_args()
    client_counts = [int(k) for k in args.clients.split(",")]
    with fresh_database() as url:
        pool = create_pool(url, max_size=2)
        keys = KeyStore(pool.connection)
        redis_folder = Path(tempfile.mkdtemp(prefix="casino-bench-redis-"))
        redis_url = os.environ.get("REDIS_URL") or start_embedded_redis(redis_folder)
        server, port = start_server(url, redis_url, args.workers, args.threads)
        try:
            admin = Client(port, keys.create(Role.ADMIN).secret)
            tables = [set_up_table(admin, keys, i) for i in range(max(client_counts))]
            print(f"gunicorn: {args.workers} workers x {args.threads} threads")
            met = {
                k: report(server, port, tables[:k], args.seconds, args.repeat)
                for k in client_counts
            }
            print(
                f"\ngoal (>= {GOAL_ROUNDS} rounds/s with p99 deal < {GOAL_DEAL_P99_MS:.0f} ms): ",
                end="",
            )
            print("; ".join(
                f"{verdict} at K = {', '.join(str(k) for k in met if met[k] is hit)}"
                for verdict, hit in (("met", True), ("missed", False))
                if hit in met.values()
            ))  # fmt: skip
        finally:
            server.terminate()
            server.wait(20)
            pool.close()
            stop_embedded_redis(redis_folder)
            shutil.rmtree(redis_folder, ignore_errors=True)


if __name__ == "__main__":
    main()
