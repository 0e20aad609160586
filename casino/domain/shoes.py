"""Shoes: opened with a commitment, dealt from in order, closed with the seed revealed.

The server seed is never part of a shoe's events while the shoe is live: the service
keeps it apart (see the application's seed vault) and reveals it in ``ShoeClosed``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from casino.domain.errors import NotFound
from casino.domain.events import DomainEvent, ShoeClosed, ShoeOpened, TilesDealt
from casino.game.shoe import ALGORITHM, commitment_of

MAX_CLIENT_SEED = 256


@dataclass(frozen=True)
class ShoeState:
    opened: ShoeOpened
    tiles_dealt: int = 0
    dealt: tuple[int, ...] = ()
    server_seed: str | None = None  # only once closed

    @property
    def closed(self) -> bool:
        return self.server_seed is not None


def open_shoe(
    shoe_id: str, table_id: str, server_seed: bytes, client_seed: str, nonce: int
) -> ShoeOpened:
    return ShoeOpened(
        shoe_id=shoe_id,
        table_id=table_id,
        algorithm=ALGORITHM,
        commitment=commitment_of(server_seed),
        client_seed=client_seed,
        nonce=nonce,
    )


def seed_matches(state: ShoeState, server_seed: bytes) -> bool:
    """Whether ``server_seed`` is the one the shoe committed to."""
    return commitment_of(server_seed) == state.opened.commitment


def require_seed(state: ShoeState, server_seed: bytes) -> None:
    if not seed_matches(state, server_seed):
        raise ValueError(
            f"the seed kept for shoe {state.opened.shoe_id} does not match its commitment"
        )


def close_shoe(state: ShoeState, server_seed: bytes) -> ShoeClosed:
    require_seed(state, server_seed)
    return ShoeClosed(
        shoe_id=state.opened.shoe_id, server_seed=server_seed.hex(), tiles_dealt=state.tiles_dealt
    )


def evolve_shoe(state: ShoeState | None, event: DomainEvent) -> ShoeState | None:
    if isinstance(event, ShoeOpened):
        return ShoeState(opened=event)
    if state is None:
        return None
    if isinstance(event, TilesDealt):
        return replace(
            state,
            tiles_dealt=state.tiles_dealt + len(event.tiles),
            dealt=state.dealt + tuple(event.tiles),
        )
    if isinstance(event, ShoeClosed):
        return replace(state, server_seed=event.server_seed)
    return state


def fold_shoe(events: Iterable[DomainEvent]) -> ShoeState | None:
    state: ShoeState | None = None
    for event in events:
        state = evolve_shoe(state, event)
    return state


def require_shoe(state: ShoeState | None, shoe_id: str) -> ShoeState:
    if state is None:
        raise NotFound("shoe_not_found", f"no shoe {shoe_id}", "shoe_id")
    return state
