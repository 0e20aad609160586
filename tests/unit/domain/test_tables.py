from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.domain.errors import InvalidCommand, RuleViolation
from casino.domain.events import DomainEvent, RoundStarted, ShoeStarted
from casino.domain.tables import (
    STATE_EVENT_TYPES,
    decide_open_table,
    decide_reconfigure_table,
    fold_table,
)
from tests.unit.domain.builders import table_command


def test_a_valid_table_opens_with_its_configuration() -> None:
    events = decide_open_table(table_command(cut_card=40), None)
    state = fold_table(events)
    assert state is not None
    assert state.config.seats == 7
    assert state.config.cut_card == 40
    assert state.live_shoe_id is None


@pytest.mark.parametrize(
    ("overrides", "field", "code"),
    [
        ({"table_id": "bad id"}, "table_id", "invalid_identifier"),
        ({"name": "  "}, "name", "invalid_text"),
        ({"currency": "eur"}, "currency", "invalid_currency"),
        ({"seats": 0}, "seats", "invalid_choice"),
        ({"seats": 8}, "seats", "invalid_choice"),
        ({"main_paytable": 6}, "main_paytable", "invalid_choice"),
        ({"doubles_paytable": 5}, "doubles_paytable", "invalid_choice"),
        ({"main_min": 0}, "main_min", "amount_too_small"),
        ({"main_min": 500, "main_max": 100}, "main_max", "limits_inverted"),
        ({"doubles_max": 10**13}, "doubles_max", "amount_too_large"),
        ({"cut_card": 57}, "cut_card", "amount_too_large"),
        ({"seats": 7, "cut_card": 20}, "cut_card", "amount_too_small"),
    ],
)
def test_bad_configurations_name_the_field(
    overrides: dict[str, object], field: str, code: str
) -> None:
    with pytest.raises(InvalidCommand) as caught:
        decide_open_table(table_command(**overrides), None)
    assert (caught.value.field, caught.value.code) == (field, code)


def test_a_table_id_is_taken_once() -> None:
    existing = fold_table(decide_open_table(table_command(), None))
    with pytest.raises(RuleViolation, match="already exists"):
        decide_open_table(table_command(), existing)


def test_table_state_tracks_its_shoes_and_rounds() -> None:
    events = [
        *decide_open_table(table_command(), None),
        ShoeStarted(table_id="T1", shoe_id="S1", nonce=0),
        RoundStarted(table_id="T1", round_id="R1", round_number=1, shoe_id="S1"),
        ShoeStarted(table_id="T1", shoe_id="S2", nonce=1),
        RoundStarted(table_id="T1", round_id="R2", round_number=2, shoe_id="S2"),
    ]
    state = fold_table(events)
    assert state is not None
    assert (state.shoes_started, state.live_shoe_id) == (2, "S2")
    assert (state.rounds_started, state.current_round_id) == (2, "R2")


def test_a_table_is_reconfigured_between_rounds_but_keeps_its_currency() -> None:
    state = fold_table(decide_open_table(table_command(), None))
    events = decide_reconfigure_table(
        table_command(main_paytable=5, seats=3, cut_card=24), state, round_in_progress=False
    )
    assert state is not None
    after = fold_table([*decide_open_table(table_command(), None), *events])
    assert after is not None
    assert (after.config.main_paytable, after.config.seats, after.config.cut_card) == (5, 3, 24)
    with pytest.raises(RuleViolation) as caught:
        decide_reconfigure_table(table_command(currency="USD"), state, round_in_progress=False)
    assert caught.value.code == "currency_fixed"
    with pytest.raises(RuleViolation) as caught:
        decide_reconfigure_table(table_command(), state, round_in_progress=True)
    assert caught.value.code == "round_in_progress"
    with pytest.raises(InvalidCommand):
        decide_reconfigure_table(table_command(seats=9), state, round_in_progress=False)


@given(st.lists(st.sampled_from(["shoe", "round", "reconfigure"]), max_size=30))
def test_the_latest_event_of_each_state_type_gives_the_whole_streams_state(
    steps: list[str],
) -> None:
    events: list[DomainEvent] = list(decide_open_table(table_command(), None))
    shoes = rounds = 0
    for index, step in enumerate(steps):
        if step == "shoe":
            events.append(ShoeStarted(table_id="T1", shoe_id=f"S{index}", nonce=shoes))
            shoes += 1
        elif step == "round":
            rounds += 1
            events.append(
                RoundStarted(table_id="T1", round_id=f"R{index}", round_number=rounds, shoe_id="S")
            )
        else:
            reconfigured = table_command(main_paytable=1 + index % 5)
            events.extend(decide_reconfigure_table(reconfigured, fold_table(events), False))
    latest = {type(e).TYPE: (i, e) for i, e in enumerate(events) if e.TYPE in STATE_EVENT_TYPES}
    assert fold_table(e for _, e in sorted(latest.values(), key=lambda p: p[0])) == fold_table(
        events
    )
