"""Command handlers: load the streams a command touches, decide, commit in one transaction.

Every handler runs inside ``_execute``: the streams are read, the domain decides, and the
appends to every stream touched (each checked against the version it was decided on),
their read-model changes and the request's idempotency record are committed together.
A stale version means someone else appended first; unless the client pinned a version
(If-Match), the command is decided again on fresh state, so concurrent wagers on one
round all land without the client seeing a conflict.

Answers are built from the decision itself (not read back), so the answer stored for an
idempotent retry is committed with the events it describes.

Streams come from the process's stream cache when it holds them (``stream_cache``); every
stream a decision rests on is checked at its commit, so a decision refused as stale
forgets its streams there and is decided again on the log's state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from casino.app import answers
from casino.app.actors import Actor, Role
from casino.app.commands import CommandResult, Idempotency, key_reused
from casino.app.ids import time_ordered_id
from casino.app.seeds import Connect, SeedVault
from casino.app.stream_cache import StreamCache
from casino.app.unit import Command, StaleCache
from casino.domain import accounts, rounds, shoes, tables, validation
from casino.domain.accounts import AccountState
from casino.domain.errors import DomainError, Forbidden, RuleViolation
from casino.domain.events import DomainEvent, MoneyMoved, RoundStarted, ShoeStarted
from casino.domain.streams import account_stream, round_stream, shoe_stream, table_stream
from casino.eventstore.model import (
    ConcurrencyError,
    IdempotencyConflict,
    IdempotencyRecord,
    IdempotentReplay,
)
from casino.eventstore.protocol import EventStore
from casino.game.shoe import new_server_seed, shuffle

MAX_ATTEMPTS = 50


class VersionMismatch(RuleViolation):
    """The client pinned a version (If-Match) and the stream has moved on."""


class Casino:
    def __init__(
        self,
        store: EventStore,
        connect: Connect,
        new_id: Callable[[], str] = time_ordered_id,
        new_seed: Callable[[], bytes] = new_server_seed,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        streams: StreamCache | None = None,
    ) -> None:
        self.store = store
        self.streams = streams if streams is not None else StreamCache()
        self.seeds = SeedVault(connect)
        self.new_id = new_id
        self.new_seed = new_seed
        self.clock = clock  # when each command is decided (its events' time)

    # --- plumbing ---------------------------------------------------------------------

    def _execute(
        self,
        name: str,
        actor: Actor,
        idempotency: Idempotency | None,
        handle: Callable[[Command], CommandResult],
    ) -> CommandResult:
        if idempotency is not None:
            stored = self.store.find_idempotent(name, idempotency.key)
            if stored is not None:
                return self._replay(stored, idempotency)
        for attempt in range(MAX_ATTEMPTS):
            # The first attempt may take streams from the cache; later ones read the log.
            command = Command(
                self.store, actor.label, name, self.clock(), self.streams, fresh=attempt > 0
            )
            try:
                result = handle(command)
            except StaleCache:
                command.forget(stale=True)
                continue
            except DomainError:
                # Streams are read one by one (or kept from earlier commands), not in one
                # snapshot: refuse only on state that is still current, or decide again.
                if command.is_current():
                    raise
                command.forget(stale=True)
                continue
            except BaseException:
                command.forget()
                raise
            record = (
                None
                if idempotency is None
                else IdempotencyRecord(
                    scope=name,
                    key=idempotency.key,
                    fingerprint=idempotency.fingerprint,
                    response=result.body,
                    status=result.status,
                )
            )
            try:
                command.commit(record)
            except ConcurrencyError as error:
                command.forget(stale=True)
                if error.stream_id in command.pinned:
                    raise VersionMismatch(
                        "version_mismatch",
                        f"{error.stream_id} is at version {error.actual}, not {error.expected}",
                        "If-Match",
                    ) from None
                continue
            except IdempotencyConflict:
                raise key_reused() from None
            except IdempotentReplay as replay:
                return self._replay(replay.record, idempotency)
            except BaseException:
                command.forget()
                raise
            return result
        raise RuleViolation("contention", "the command met too much contention: retry it")

    @staticmethod
    def _replay(stored: IdempotencyRecord, idempotency: Idempotency | None) -> CommandResult:
        if idempotency is None or stored.fingerprint != idempotency.fingerprint:
            raise key_reused()
        return CommandResult(stored.response, stored.status, replayed=True)

    @staticmethod
    def _require_table_access(actor: Actor, table_id: str) -> None:
        if not actor.may_operate(table_id):
            raise Forbidden("table_forbidden", f"this key may not operate table {table_id}")

    @staticmethod
    def _accounts(
        command: Command, player_ids: Sequence[str], currency: str
    ) -> dict[str, AccountState]:
        """Each player's account, from its last event alone (which carries the balance)."""
        players = sorted(set(player_ids))
        latest = command.load_latest([account_stream(p, currency) for p in players])
        return {
            player: accounts.fold_account(
                player, currency, latest[account_stream(player, currency)]
            )
            for player in players
        }

    @staticmethod
    def _table(command: Command, table_id: str) -> tables.TableState | None:
        stream = table_stream(table_id)
        return tables.fold_table(command.load_latest([stream], tables.STATE_EVENT_TYPES)[stream])

    @staticmethod
    def _post(command: Command, moves: Sequence[MoneyMoved]) -> None:
        for move in moves:
            command.append(account_stream(move.player_id, move.currency), [move])

    # --- tables -----------------------------------------------------------------------

    def open_table(
        self, table: tables.OpenTable, actor: Actor, idempotency: Idempotency | None = None
    ) -> CommandResult:
        if actor.role is not Role.ADMIN:
            raise Forbidden("admin_only", "only an admin key may create tables")

        def handle(command: Command) -> CommandResult:
            stream = table_stream(table.table_id)
            events = tables.decide_open_table(table, self._table(command, table.table_id))
            command.append(stream, events)
            return CommandResult(answers.table_opened(table, command.at), 201)

        return self._execute("open_table", actor, idempotency, handle)

    def reconfigure_table(
        self,
        table: tables.OpenTable,
        actor: Actor,
        idempotency: Idempotency | None = None,
        expected_version: int | None = None,
    ) -> CommandResult:
        if actor.role is not Role.ADMIN:
            raise Forbidden("admin_only", "only an admin key may reconfigure tables")
        validation.identifier(table.table_id, "table_id")

        def handle(command: Command) -> CommandResult:
            stream = table_stream(table.table_id)
            state = self._table(command, table.table_id)
            if expected_version is not None:
                command.pin(stream, expected_version)
            in_progress = False
            if state is not None and state.current_round_id is not None:
                current = rounds.fold_round(command.load(round_stream(state.current_round_id)))
                in_progress = current is not None and not current.finished
            events = tables.decide_reconfigure_table(table, state, in_progress)
            command.append(stream, events)
            assert state is not None
            return CommandResult(
                answers.table_reconfigured(table, state, command.loaded[stream] + 1), 200
            )

        return self._execute("reconfigure_table", actor, idempotency, handle)

    # --- player accounts --------------------------------------------------------------

    def move_funds(
        self,
        player_id: str,
        currency: str,
        amount: int,
        reference: str,
        deposit: bool,
        actor: Actor,
        idempotency: Idempotency | None = None,
    ) -> CommandResult:
        validation.identifier(player_id, "player_id")
        validation.currency(currency)

        def handle(command: Command) -> CommandResult:
            account = self._accounts(command, [player_id], currency)[player_id]
            move = (accounts.deposit if deposit else accounts.withdraw)(account, amount, reference)
            self._post(command, [move])
            version = command.loaded[account_stream(player_id, currency)] + 1
            return CommandResult(answers.money_moved(move, version), 201)

        return self._execute("deposit" if deposit else "withdraw", actor, idempotency, handle)

    # --- rounds -----------------------------------------------------------------------

    def open_round(
        self,
        table_id: str,
        client_seed: str,
        actor: Actor,
        idempotency: Idempotency | None = None,
    ) -> CommandResult:
        """Open a round on the table's live shoe, or on a new shoe when it cannot serve.

        ``client_seed`` is the table system's entropy for a new shoe; when the live shoe
        (cut-card policy) deals the round, that shoe keeps the client seed it opened with.
        """
        validation.identifier(table_id, "table_id")
        self._require_table_access(actor, table_id)
        validation.text(
            client_seed, "client_seed", max_length=shoes.MAX_CLIENT_SEED, required=False
        )

        def handle(command: Command) -> CommandResult:
            table = tables.require_table(self._table(command, table_id), table_id)
            if table.current_round_id is not None:
                current = rounds.fold_round(command.load(round_stream(table.current_round_id)))
                if current is not None and not current.finished:
                    raise RuleViolation(
                        "round_in_progress",
                        f"round {table.current_round_id} is still open at this table",
                        "table_id",
                    )
            shoe = self._shoe_for_round(command, table, client_seed)
            round_id = self.new_id()
            opened = rounds.open_round(round_id, table.config, table.rounds_started + 1, shoe)
            # A new id's stream is new: the append is checked at version 0 without first
            # asking the log (should the id exist after all, the append is refused and the
            # command decided again, with another id).
            command.loaded[round_stream(round_id)] = 0
            command.append(round_stream(round_id), [opened])
            started = RoundStarted(
                table_id=table_id,
                round_id=round_id,
                round_number=opened.round_number,
                shoe_id=shoe.opened.shoe_id,
            )
            command.append(table_stream(table_id), [started])
            return CommandResult(answers.round_opened(opened, shoe.opened, command.at), 201)

        return self._execute("open_round", actor, idempotency, handle)

    def _shoe_for_round(
        self, command: Command, table: tables.TableState, client_seed: str
    ) -> shoes.ShoeState:
        table_id = table.config.table_id
        if table.live_shoe_id is not None:
            live = shoes.require_shoe(
                shoes.fold_shoe(command.load(shoe_stream(table.live_shoe_id))), table.live_shoe_id
            )
            if not live.closed and tables.live_shoe_can_serve(table.config, live.tiles_dealt):
                return live
            if not live.closed:
                closed = shoes.close_shoe(live, self.seeds.seed_of(live.opened.shoe_id))
                command.append(shoe_stream(live.opened.shoe_id), [closed])
                self.seeds.closed(command, live.opened.shoe_id)
        shoe_id = self.new_id()
        seed = self.new_seed()
        self.seeds.keep(command, shoe_id, seed)
        opened = shoes.open_shoe(shoe_id, table_id, seed, client_seed, table.shoes_started)
        command.loaded[shoe_stream(shoe_id)] = 0
        command.append(shoe_stream(shoe_id), [opened])
        started = ShoeStarted(table_id=table_id, shoe_id=shoe_id, nonce=opened.nonce)
        command.append(table_stream(table_id), [started])
        return shoes.ShoeState(opened=opened)

    def _round(
        self, command: Command, round_id: str, actor: Actor, expected_version: int | None
    ) -> rounds.RoundState:
        validation.identifier(round_id, "round_id")
        state = rounds.require_round(
            rounds.fold_round(command.load(round_stream(round_id), expected_version)), round_id
        )
        self._require_table_access(actor, state.opened.table_id)
        return state

    def place_wagers(
        self,
        round_id: str,
        wagers: Sequence[rounds.SeatWager],
        actor: Actor,
        idempotency: Idempotency | None = None,
        expected_version: int | None = None,
    ) -> CommandResult:
        def handle(command: Command) -> CommandResult:
            state = self._round(command, round_id, actor, expected_version)
            players = self._accounts(command, [w.player_id for w in wagers], state.opened.currency)
            placed, debits = rounds.decide_wagers(state, wagers, players)
            command.append(round_stream(round_id), placed)
            self._post(command, debits)
            after = rounds.fold_round([state.opened, *state.wagers.values(), *placed])
            version = command.loaded[round_stream(round_id)] + len(placed)
            return CommandResult(answers.wagers_placed(after, version, debits), 201)

        return self._execute("place_wagers", actor, idempotency, handle)

    def deal(
        self,
        round_id: str,
        actor: Actor,
        idempotency: Idempotency | None = None,
        expected_version: int | None = None,
    ) -> CommandResult:
        def handle(command: Command) -> CommandResult:
            state = self._round(command, round_id, actor, expected_version)
            shoe_id = state.opened.shoe_id
            shoe = shoes.require_shoe(shoes.fold_shoe(command.load(shoe_stream(shoe_id))), shoe_id)
            seed = self.seeds.seed_of(shoe_id)
            if not shoes.seed_matches(shoe, seed):  # never shuffle with a seed kept wrong
                seed = self.seeds.seed_of(shoe_id, from_vault=True)
                shoes.require_seed(shoe, seed)
            order = shuffle(seed, shoe.opened.client_seed, shoe.opened.nonce)
            players = self._accounts(
                command, [w.player_id for w in state.wagers.values()], state.opened.currency
            )
            decision = rounds.decide_deal(state, shoe, order, players)
            command.append(round_stream(round_id), decision.round_events)
            shoe_events: list[DomainEvent] = [decision.tiles_dealt]
            after = shoes.evolve_shoe(shoe, decision.tiles_dealt)
            table = self._table(command, state.opened.table_id)
            assert after is not None and table is not None
            revealed = None
            if not tables.live_shoe_can_serve(table.config, after.tiles_dealt):
                closing = shoes.close_shoe(after, seed)
                shoe_events.append(closing)
                self.seeds.closed(command, shoe_id)
                revealed = closing.server_seed
            command.append(shoe_stream(shoe_id), shoe_events)
            self._post(command, decision.payouts)
            version = command.loaded[round_stream(round_id)] + len(decision.round_events)
            balances = {p: a.balance for p, a in players.items()}
            for payout in decision.payouts:
                balances[payout.player_id] = payout.balance_after
            body = answers.round_dealt(state, decision, version, balances, shoe, revealed)
            return CommandResult(body, 200)

        return self._execute("deal", actor, idempotency, handle)

    def void_round(
        self,
        round_id: str,
        reason: str,
        actor: Actor,
        idempotency: Idempotency | None = None,
        expected_version: int | None = None,
    ) -> CommandResult:
        """Before the deal: refund every wager. After settlement: an admin's correction."""

        def handle(command: Command) -> CommandResult:
            state = self._round(command, round_id, actor, expected_version)
            players = self._accounts(
                command, [w.player_id for w in state.wagers.values()], state.opened.currency
            )
            events: list[DomainEvent]
            moves: list[MoneyMoved]
            if state.status is rounds.RoundStatus.BETTING:
                events, moves = rounds.decide_void(state, actor.label, reason, players)
            elif actor.role is Role.ADMIN:
                events, moves = rounds.decide_reversal(state, actor.label, reason, players)
            else:
                raise Forbidden(
                    "admin_only",
                    f"round {round_id} is {state.status.value}: only an admin may correct it",
                )
            command.append(round_stream(round_id), events)
            self._post(command, moves)
            after = rounds.fold_round([state.opened, *state.wagers.values(), *events])
            assert after is not None
            version = command.loaded[round_stream(round_id)] + len(events)
            return CommandResult(answers.round_voided(after, version, events[0], moves), 200)

        return self._execute("void_round", actor, idempotency, handle)
