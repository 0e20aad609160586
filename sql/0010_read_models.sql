-- Read models: the current state the API answers from, maintained from events in the
-- same transaction as the append (casino/readmodels). They hold nothing the log does
-- not: `casino db rebuild` recomputes every one of them from the log and compares.

CREATE TABLE rm_tables (
    table_id         text PRIMARY KEY,
    name             text        NOT NULL,
    currency         text        NOT NULL,
    seats            integer     NOT NULL,
    main_paytable    integer     NOT NULL,
    doubles_paytable integer     NOT NULL,
    main_min         bigint      NOT NULL,
    main_max         bigint      NOT NULL,
    doubles_min      bigint      NOT NULL,
    doubles_max      bigint      NOT NULL,
    cut_card         integer,
    opened_at        timestamptz NOT NULL,
    shoes_started    integer     NOT NULL,
    live_shoe_id     text,
    rounds_started   integer     NOT NULL,
    current_round_id text,
    version          integer     NOT NULL
);

CREATE TABLE rm_shoes (
    shoe_id      text PRIMARY KEY,
    table_id     text        NOT NULL,
    algorithm    text        NOT NULL,
    commitment   text        NOT NULL,
    client_seed  text        NOT NULL,
    nonce        integer     NOT NULL,
    opened_at    timestamptz NOT NULL,
    tiles_dealt  integer     NOT NULL,
    dealt        integer[]   NOT NULL,
    closed_at    timestamptz,
    server_seed  text,
    version      integer     NOT NULL
);
CREATE INDEX rm_shoes_table ON rm_shoes (table_id, nonce);

CREATE TABLE rm_rounds (
    round_id         text PRIMARY KEY,
    table_id         text        NOT NULL,
    round_number     integer     NOT NULL,
    shoe_id          text        NOT NULL,
    commitment       text        NOT NULL,
    currency         text        NOT NULL,
    seats            integer     NOT NULL,
    main_paytable    integer     NOT NULL,
    doubles_paytable integer     NOT NULL,
    status           text        NOT NULL,
    opened_at        timestamptz NOT NULL,
    closed_at        timestamptz,
    wagers           integer     NOT NULL,
    handle           bigint      NOT NULL,
    payouts          bigint      NOT NULL,
    version          integer     NOT NULL
);
CREATE INDEX rm_rounds_table_opened ON rm_rounds (table_id, opened_at, round_id);
CREATE INDEX rm_rounds_opened ON rm_rounds (opened_at, round_id);

CREATE TABLE rm_seats (
    round_id        text    NOT NULL,
    seat            integer NOT NULL,
    player_id       text    NOT NULL,
    main_stake      bigint  NOT NULL,
    doubles_stake   bigint  NOT NULL,
    hand            integer[],
    connector       integer,
    positions       integer[],
    tile_scores     integer[],
    connector_bonus integer,
    total           integer,
    doubles_event   text,
    main_odds       integer,
    main_payout     bigint,
    doubles_odds    integer,
    doubles_payout  bigint,
    PRIMARY KEY (round_id, seat)
);
CREATE INDEX rm_seats_player ON rm_seats (player_id, round_id);

CREATE TABLE rm_round_players (
    round_id       text   NOT NULL,
    player_id      text   NOT NULL,
    staked         bigint NOT NULL,
    paid           bigint NOT NULL,
    balance_before bigint NOT NULL,
    balance_after  bigint NOT NULL,
    PRIMARY KEY (round_id, player_id)
);

CREATE TABLE rm_balances (
    player_id text    NOT NULL,
    currency  text    NOT NULL,
    balance   bigint  NOT NULL CHECK (balance >= 0),
    version   integer NOT NULL,
    PRIMARY KEY (player_id, currency)
);

-- The double-entry ledger: one row per posting; each event's postings sum to zero.
CREATE TABLE ledger_postings (
    stream_id   text        NOT NULL,
    version     integer     NOT NULL,
    line        integer     NOT NULL,
    event_type  text        NOT NULL,
    account     text        NOT NULL,
    currency    text        NOT NULL,
    amount      bigint      NOT NULL CHECK (amount <> 0),
    round_id    text,
    recorded_at timestamptz NOT NULL,
    PRIMARY KEY (stream_id, version, line)
);
CREATE INDEX ledger_postings_account ON ledger_postings (account, currency);

-- The seed vault: a live shoe's server seed, kept out of the log until the shoe closes
-- (ShoeClosed then carries it). Read only by the deal.
CREATE TABLE shoe_secrets (
    shoe_id     text PRIMARY KEY,
    server_seed bytea NOT NULL CHECK (octet_length(server_seed) = 32)
);
