"""``casino webhooks``: subscriptions (the secret is shown once), deliveries, replays."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from casino.bootstrap import resolve_database_url
from casino.cli.args import Parser, UsageError
from casino.config import Settings
from casino.db.migrations import upgrade
from casino.domain.errors import DomainError
from casino.webhooks import queries, subscriptions
from casino.webhooks.replay import replay


def add_parser(commands: argparse._SubParsersAction[Parser]) -> None:
    webhooks = commands.add_parser("webhooks", help="event delivery to table systems")
    sub = webhooks.add_subparsers(dest="webhooks_command", required=True)
    subscribe = sub.add_parser("subscribe", help="add a subscription; prints its id and secret")
    subscribe.add_argument("--url", required=True, help="http(s) URL the events are posted to")
    subscribe.add_argument("--event-types", default="", help="comma separated (default: all)")
    subscribe.add_argument("--tables", default="", help="comma separated table ids (default: all)")
    subscribe.add_argument(
        "--from-position",
        type=int,
        default=None,
        help="deliver events after this (default: new only)",
    )
    subscribe.set_defaults(run=run_subscribe)
    listing = sub.add_parser("list", help="every subscription, with its lag")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(run=run_list)
    deactivate = sub.add_parser("deactivate", help="stop delivering to a subscription")
    deactivate.add_argument("subscription_id")
    deactivate.set_defaults(run=run_deactivate)
    deliveries = sub.add_parser("deliveries", help="a subscription's deliveries")
    deliveries.add_argument("subscription_id")
    deliveries.add_argument("--status", choices=queries.STATUSES)
    deliveries.add_argument("--after", type=int, default=0, help="the last delivery id seen")
    deliveries.add_argument("--limit", type=int, default=100)
    deliveries.add_argument("--json", action="store_true", help="print JSON")
    deliveries.set_defaults(run=run_deliveries)
    replaying = sub.add_parser("replay", help="deliver a subscription's events again")
    replaying.add_argument("subscription_id")
    replaying.add_argument("--from-position", type=int, required=True)
    replaying.set_defaults(run=run_replay)


@contextmanager
def _connection() -> Iterator[psycopg.Connection[Any]]:
    url = resolve_database_url(Settings.from_environment())
    upgrade(url)
    with psycopg.connect(url, autocommit=True) as connection:
        try:
            yield connection
        except DomainError as error:
            raise UsageError(f"{error.field or 'webhooks'}: {error.message}") from None


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def run_subscribe(args: argparse.Namespace) -> int:
    with _connection() as connection:
        created = subscriptions.create_subscription(
            connection, args.url, _names(args.event_types), _names(args.tables), args.from_position
        )
    print(f"id      {created['id']}")
    print(f"secret  {created['secret']}")
    print("(the secret is shown only now: receivers verify signatures with it)")
    return 0


def run_list(args: argparse.Namespace) -> int:
    with _connection() as connection:
        found = subscriptions.list_subscriptions(connection)
        lags = {s["id"]: queries.lag(connection, s["id"]) for s in found}
    if args.json:
        print(json.dumps([{**s, "lag": lags[s["id"]]} for s in found]))
        return 0
    for s in found:
        lag = lags[s["id"]]
        state = "active" if s["active"] else "inactive"
        print(
            f"{s['id']}  {state:<8}  {s['url']}  at {s['last_position']}/{lag['head_position']}"
            f"  pending {lag['pending']}  dead {lag['dead']}"
            f"  types {','.join(s['event_types']) or '*'}  tables {','.join(s['tables']) or '*'}"
        )
    return 0


def run_deactivate(args: argparse.Namespace) -> int:
    with _connection() as connection:
        subscriptions.deactivate_subscription(connection, args.subscription_id)
    print("deactivated")
    return 0


def run_deliveries(args: argparse.Namespace) -> int:
    with _connection() as connection:
        page = queries.deliveries(
            connection, args.subscription_id, args.status, args.after, args.limit
        )
    if args.json:
        print(json.dumps(page))
        return 0
    for d in page["deliveries"]:
        outcome = d["last_error"] or (
            "" if d["last_status_code"] is None else d["last_status_code"]
        )
        print(
            f"{d['id']:>8}  {d['status']:<9}  pos {d['position']:>9} gen {d['generation']}"
            f"  {d['stream_id']} {d['event_type']}  attempts {d['attempts']}  {outcome}"
        )
    return 0


def run_replay(args: argparse.Namespace) -> int:
    with _connection() as connection:
        replayed = replay(connection, args.subscription_id, args.from_position)
    print(
        f"replaying {replayed['subscription_id']} after position {replayed['from_position']}"
        f" as generation {replayed['generation']}"
    )
    return 0
