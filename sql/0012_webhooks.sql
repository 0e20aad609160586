-- Event delivery to table systems (casino/webhooks): subscriptions, and one delivery row
-- per event to send to a subscription. Neither is history (the log is): they are the
-- delivery workers' working state, so rows here are updated; a replay derives deliveries
-- from the log again.

CREATE TABLE webhook_subscriptions (
    id             text        PRIMARY KEY CHECK (id ~ '^sub_[0-9a-f]{16}$'),
    url            text        NOT NULL CHECK (url ~* '^https?://'),
    -- Filters; an empty array matches everything. A table filter matches an event by its
    -- table: data.table_id, else the table of the round or shoe it names (data.round_id,
    -- data.shoe_id; read from the first event of that round's or shoe's stream). Events
    -- of no table (deposits, withdrawals, reconciliations) reach unfiltered subscriptions only.
    event_types    text[]      NOT NULL DEFAULT '{}',
    tables         text[]      NOT NULL DEFAULT '{}',
    -- The Standard Webhooks signing secret (whsec_<base64>), kept in clear: HMAC signing
    -- needs the secret itself, so unlike an API key it cannot be stored hashed. Protect it
    -- as the database is protected; it is shown once, at creation, and never read back out.
    secret         text        NOT NULL CHECK (secret ~ '^whsec_[A-Za-z0-9+/]+=*$'),
    active         boolean     NOT NULL DEFAULT true,
    created_at     timestamptz NOT NULL DEFAULT now(),
    deactivated_at timestamptz,
    -- The fan-out checkpoint: every event up to here has its delivery row (or did not
    -- match). Advanced in the same transaction as the rows it covers.
    last_position  bigint      NOT NULL CHECK (last_position >= 0),
    -- Bumped by each replay: a replayed event gets a delivery row of the new generation.
    generation     integer     NOT NULL DEFAULT 0 CHECK (generation >= 0),
    CHECK (active = (deactivated_at IS NULL))
);

CREATE TABLE webhook_deliveries (
    id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subscription_id  text        NOT NULL REFERENCES webhook_subscriptions (id),
    -- The event (no foreign key: the log is append-only, a position never disappears, and
    -- a key would take row locks on the log).
    position         bigint      NOT NULL,
    generation       integer     NOT NULL,
    stream_id        text        NOT NULL,
    event_type       text        NOT NULL,
    status           text        NOT NULL DEFAULT 'pending'
                                 CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts         integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    last_attempt_at  timestamptz,
    last_status_code integer,
    last_error       text,
    delivered_at     timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    -- Each event once per subscription and generation: a second fan-out of the same event
    -- fails loudly instead of sending twice; a replay (a new generation) sends it again.
    CONSTRAINT webhook_deliveries_once UNIQUE (subscription_id, position, generation),
    CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
);

-- What is due, soonest first.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
    WHERE status = 'pending';
-- Per-stream order: is an earlier delivery of this subscription and stream still pending?
CREATE INDEX webhook_deliveries_stream_pending
    ON webhook_deliveries (subscription_id, stream_id, position, generation)
    WHERE status = 'pending';
-- Listing a subscription's deliveries in the order they were made, and its dead letters.
CREATE INDEX webhook_deliveries_listing ON webhook_deliveries (subscription_id, id);
CREATE INDEX webhook_deliveries_dead ON webhook_deliveries (subscription_id, id)
    WHERE status = 'dead';
