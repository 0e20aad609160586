from __future__ import annotations

import json

from casino.eventstore.unit_of_work import PlanEachRun
from casino.readmodels.apply_sql import batched_statements, statements
from casino.readmodels.changes import RowChange, Update, Upsert


def balance(player: str, amount: int) -> Upsert:
    return Upsert("rm_balances", {"player_id": player, "currency": "EUR", "balance": amount,
                                  "version": 1})  # fmt: skip


def test_upserts_of_a_table_share_one_insert_and_updates_of_a_row_merge() -> None:
    changes: list[RowChange] = [
        balance("a", 1),
        balance("b", 2),
        Update("rm_rounds", {"round_id": "r"}, {"version": 2}, {"wagers": 1, "handle": 5}),
        Update("rm_rounds", {"round_id": "r"}, {"version": 3}, {"wagers": 1, "handle": 7}),
    ]
    batched = batched_statements(changes)
    assert len(batched) == 2
    insert, update = batched
    assert insert[0].count("(%s, %s, %s, %s)") == 2
    assert insert[1] == ["a", "EUR", 1, 1, "b", "EUR", 2, 1]
    assert update[1] == [3, 2, 12, "r"]  # version set last, wagers and handle added up


def test_a_repeated_key_goes_into_a_later_insert() -> None:
    batched = batched_statements([balance("a", 1), balance("b", 2), balance("a", 3)])
    assert [params for _, params in batched] == [
        ["a", "EUR", 1, 1, "b", "EUR", 2, 1],
        ["a", "EUR", 3, 1],
    ]


def test_an_upsert_after_an_update_of_its_row_keeps_the_original_order() -> None:
    changes: list[RowChange] = [
        Update("rm_balances", {"player_id": "a", "currency": "EUR"}, {"balance": 5}),
        balance("a", 1),
    ]
    assert batched_statements(changes) == statements(changes)


def seat(seat_number: int, hand: list[int]) -> Update:
    return Update("rm_seats", {"round_id": "r", "seat": seat_number}, {"hand": hand}, {"paid": 5})


def test_updates_of_many_rows_of_one_shape_share_one_statement() -> None:
    batched = batched_statements([seat(1, [1, 2]), seat(2, [3, 4]), seat(3, [5, 6])])
    assert len(batched) == 1
    statement, params = batched[0]
    assert "jsonb_populate_recordset" in statement
    assert params[1] == 3  # the LIMIT: every row, and the planner's estimate
    assert json.loads(params[0]) == [
        {"round_id": "r", "seat": n, "hand": hand, "paid": 5}
        for n, hand in ((1, [1, 2]), (2, [3, 4]), (3, [5, 6]))
    ]


def test_a_row_updated_twice_keeps_every_update_in_order() -> None:
    # The second update of seat 1 sets what the first added: they cannot merge, and
    # their order matters, so every update goes alone, in order.
    changes: list[RowChange] = [
        seat(1, [1]),
        seat(2, [2]),
        Update("rm_seats", {"round_id": "r", "seat": 1}, {"paid": 0}),
    ]
    assert batched_statements(changes) == statements(changes)


def test_an_update_of_many_rows_is_planned_on_every_run() -> None:
    ((statement, _),) = batched_statements([seat(1, [1, 2]), seat(2, [3, 4])])
    assert isinstance(statement, PlanEachRun)  # never on a plan made for a smaller table
    assert not isinstance(batched_statements([seat(1, [1, 2])])[0][0], PlanEachRun)
