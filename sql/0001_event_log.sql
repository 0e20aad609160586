-- The event log: every decision of the service, append-only, in one global order, each
-- event hash-chained to the previous event of its stream. The write path is the function
-- events_commit() below; casino/eventstore/postgres.py explains the choices.
--
-- Error codes raised here (class "ES", ours), translated once in casino/eventstore/postgres.py:
--   ES403  UPDATE, DELETE or TRUNCATE on an append-only table
--   ES409  the stream is not at the version the caller decided on
--   ES412  the caller's previous hash is not the hash of the stream's last event

CREATE TABLE events (
    position       bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream_id      text        NOT NULL CHECK (stream_id <> ''),
    version        integer     NOT NULL CHECK (version >= 1),
    type           text        NOT NULL CHECK (type <> ''),
    schema_version integer     NOT NULL CHECK (schema_version >= 1),
    data           jsonb       NOT NULL CHECK (jsonb_typeof(data) = 'object'),
    metadata       jsonb       NOT NULL CHECK (jsonb_typeof(metadata) = 'object'),
    recorded_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    previous_hash  text        NOT NULL CHECK (octet_length(decode(previous_hash, 'hex')) = 32),
    hash           text        NOT NULL CHECK (octet_length(decode(hash, 'hex')) = 32),
    -- The optimistic-concurrency backstop: two writers can never both own a version.
    CONSTRAINT events_stream_version_key UNIQUE (stream_id, version)
);

COMMENT ON TABLE events IS
    'Append-only event log. Positions are assigned in commit order (see events_commit).';

-- Append-only, enforced by the database for every role that does not own the table
-- (an owner or superuser could disable triggers; production runs as a non-owner role).
-- Statement-level triggers fire even when no row matches, so a refused UPDATE or DELETE
-- cannot be mistaken for a harmless no-op.
CREATE FUNCTION refuse_change_to_append_only_table() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'ES403';
END
$$;

CREATE TRIGGER events_refuse_update_delete
    BEFORE UPDATE OR DELETE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change_to_append_only_table();

CREATE TRIGGER events_refuse_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change_to_append_only_table();

-- Global order (invariant 3): every insert into the log first takes one
-- transaction-scoped advisory lock, the "append lock", held until the transaction ends.
-- Postgres releases it only after the commit is visible to other sessions, so the next
-- writer draws its positions after ours are readable: positions are handed out in
-- commit order, and a reader that has seen position P never later sees a smaller one
-- appear. The statement trigger makes the rule hold for any writer, not only for
-- events_commit(). 7310293372818011001 is this lock's key and must not be reused.
CREATE FUNCTION events_take_append_lock() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(7310293372818011001);
    RETURN NULL;
END
$$;

CREATE TRIGGER events_serialize_appends
    BEFORE INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_take_append_lock();

-- Idempotency records: the stored answer to a command, written in the same transaction
-- as its events. The primary key makes concurrent racers with one key queue up: the
-- second INSERT waits for the first transaction and fails if it committed.
CREATE TABLE idempotency_keys (
    scope       text        NOT NULL,
    key         text        NOT NULL,
    fingerprint text        NOT NULL,
    response    jsonb       NOT NULL,
    status      integer     NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (scope, key)
);

-- The write path: one command's appends (to any number of streams) and its idempotency
-- record, in one statement. p_appends is a JSON array of
--   {"stream_id", "expected_version", "previous_hash", "metadata",
--    "events": [{"type", "schema_version", "data", "hash"}, ...]}
-- with hashes computed by the caller (RFC 8785 canonical JSON is not available here).
--
-- Order of work, and why:
--  1. The idempotency record first, before any lock: a racer with the same key waits
--     here on the key, not on the append lock, and then fails on it (not on a version).
--  2. The append lock, held until commit (see events_serialize_appends).
--  3. Per stream, the head is checked in a statement that starts after the lock was
--     granted (a volatile function takes a fresh snapshot per statement in READ
--     COMMITTED), so it sees every append committed while we waited. A stale expected
--     version is refused before the INSERT: it never consumes a global position.
--  4. The INSERT; previous_hash links are derived here, so a batch is always linked.
CREATE FUNCTION events_commit(
    p_idempotency_scope       text,
    p_idempotency_key         text,
    p_idempotency_fingerprint text,
    p_idempotency_response    jsonb,
    p_idempotency_status      integer,
    p_appends                 jsonb
) RETURNS TABLE (out_stream_id text, out_version integer, out_position bigint,
                 out_recorded_at timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
    batch        jsonb;
    stream       text;
    expected     integer;
    head_version integer;
    head_hash    text;
BEGIN
    IF p_idempotency_key IS NOT NULL THEN
        INSERT INTO idempotency_keys (scope, key, fingerprint, response, status)
        VALUES (p_idempotency_scope, p_idempotency_key, p_idempotency_fingerprint,
                p_idempotency_response, p_idempotency_status);
    END IF;

    IF jsonb_array_length(p_appends) = 0 THEN
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(7310293372818011001);

    FOR batch IN SELECT value FROM jsonb_array_elements(p_appends) LOOP
        stream := batch->>'stream_id';
        expected := (batch->>'expected_version')::integer;

        SELECT e.version, e.hash INTO head_version, head_hash
          FROM events e
         WHERE e.stream_id = stream
         ORDER BY e.version DESC
         LIMIT 1;
        head_version := coalesce(head_version, 0);
        head_hash := coalesce(head_hash, repeat('0', 64));

        IF head_version <> expected THEN
            RAISE EXCEPTION 'stream % is at version %, not %', stream, head_version, expected
                USING ERRCODE = 'ES409',
                      DETAIL = jsonb_build_object('stream_id', stream, 'expected', expected,
                                                  'actual', head_version)::text;
        END IF;
        IF head_hash <> batch->>'previous_hash' THEN
            RAISE EXCEPTION 'stream % version % has hash %, not %',
                            stream, head_version, head_hash, batch->>'previous_hash'
                USING ERRCODE = 'ES412',
                      DETAIL = jsonb_build_object('stream_id', stream, 'expected', expected,
                                                  'actual', head_version)::text;
        END IF;

        RETURN QUERY
        INSERT INTO events AS e
               (stream_id, version, type, schema_version, data, metadata, previous_hash, hash)
        SELECT stream, expected + b.ord::integer, b.event->>'type',
               (b.event->>'schema_version')::integer, b.event->'data', batch->'metadata',
               coalesce(lag(b.event->>'hash') OVER (ORDER BY b.ord), head_hash),
               b.event->>'hash'
          FROM jsonb_array_elements(batch->'events') WITH ORDINALITY AS b (event, ord)
         ORDER BY b.ord
        RETURNING e.stream_id, e.version, e.position, e.recorded_at;
    END LOOP;
END
$$;
