"""The last N rounds of a seat or of a player, oldest first, each as the full hand
history ``Queries.round_history`` gives for one round.

Only rounds that were played out count: settled (or reversed after that) and voided
ones. A round still taking bets has no hand yet, and would vanish from a second recall
made after its deal.
"""

from __future__ import annotations

from typing import Any

from casino.app.queries import Json, Queries
from casino.domain.errors import InvalidCommand

PLAYED_STATUSES = ["settled", "reversed", "voided"]
MAX_ROUNDS = 100

Query = tuple[str, dict[str, Any]]

# At one table, play order is the round number (rm_rounds_table_number walks it back).
_SEAT_ROUNDS = """
SELECT r.round_id FROM rm_rounds r
 WHERE r.table_id = %(table_id)s AND r.status = ANY(%(played)s)
   AND EXISTS (SELECT 1 FROM rm_seats s WHERE s.round_id = r.round_id AND s.seat = %(seat)s)
 ORDER BY r.round_number DESC
 LIMIT %(n)s
"""

# Across tables round numbers do not compare: opening time, then id, as GET /v1/rounds.
_PLAYER_ROUNDS = """
SELECT r.round_id FROM rm_rounds r
 WHERE r.round_id IN (SELECT s.round_id FROM rm_seats s WHERE s.player_id = %(player_id)s)
   AND r.status = ANY(%(played)s) {at_table}
 ORDER BY r.opened_at DESC, r.round_id DESC
 LIMIT %(n)s
"""


def last_rounds_of_seat(queries: Queries, table_id: str, seat: int, n: int) -> list[Json]:
    """The last ``n`` played rounds in which ``seat`` of ``table_id`` had a wager."""
    seats = queries.table(table_id)["seats"]  # an unknown table is a 404, not an empty list
    if not 1 <= seat <= seats:
        raise InvalidCommand("unknown_seat", f"table {table_id} has seats 1 to {seats}", "seat")
    return _histories(queries, seat_rounds_query(table_id, seat, n))


def last_rounds_of_player(
    queries: Queries, player_id: str, n: int, table_id: str | None = None
) -> list[Json]:
    """The last ``n`` played rounds in which ``player_id`` had a seat (at ``table_id``
    only, when given)."""
    return _histories(queries, player_rounds_query(player_id, n, table_id))


def seat_rounds_query(table_id: str, seat: int, n: int) -> Query:
    """The ids of a seat's last ``n`` played rounds, newest first."""
    params = {"table_id": table_id, "seat": seat, "n": _checked(n), "played": PLAYED_STATUSES}
    return _SEAT_ROUNDS, params


def player_rounds_query(player_id: str, n: int, table_id: str | None = None) -> Query:
    """The ids of a player's last ``n`` played rounds, newest first."""
    # Left out, not "OR %(table_id)s IS NULL": a generic plan could not use it then.
    at_table = "" if table_id is None else "AND r.table_id = %(table_id)s"
    params = {
        "player_id": player_id, "table_id": table_id, "n": _checked(n),
        "played": PLAYED_STATUSES,
    }  # fmt: skip
    return _PLAYER_ROUNDS.format(at_table=at_table), params


def _checked(n: int) -> int:
    if not 1 <= n <= MAX_ROUNDS:
        raise InvalidCommand("invalid_count", f"n must be 1 to {MAX_ROUNDS}", "n")
    return n


def _histories(queries: Queries, query: Query) -> list[Json]:
    newest_first = [round_id for (round_id,) in queries.connection.execute(*query)]
    return [queries.round_history(round_id) for round_id in reversed(newest_first)]
