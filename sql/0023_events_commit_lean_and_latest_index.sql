-- events_commit() as in 0022, with less to prepare per call, and the log's index of
-- the latest event of each type in a stream kept for the types that are looked up so.
-- Measured with callgrind on a Postgres 15 backend (per command of bench/event_store.py:
-- three events and an idempotency record; the difference between 100 and 2,100
-- commands on one connection, two fresh databases each): 761,000-762,000 instructions
-- with 0022, 649,000-650,000 with this migration.
--
-- 1. The index. 0013's events_stream_type_version held an entry for every event, for
--    one kind of read: a table's state, folded from its latest event of each of four
--    types (casino/domain/tables.py, STATE_EVENT_TYPES). Wagers, deals, settlements and
--    postings, nearly the whole log, were never looked up through it. It now holds only
--    the types named by events_latest_indexed_types(), and casino/eventstore/postgres.py
--    reads the latest event of those types through it, of any other type through the
--    stream's (stream_id, version) key. About 66,000 instructions less per command, and
--    three index entries fewer in the WAL of every command.
--    The function is IMMUTABLE, so that the planner folds it to the same constant in the
--    index's predicate and in the store's query, and proves the one from the other; it
--    is the one place the list is written. To change the list, a later migration
--    replaces the function and then rebuilds the index (REINDEX INDEX
--    events_stream_state_type_version): an index built on the old list would miss
--    events of a new type. tests/integration/eventstore/test_latest_index.py checks the
--    list against the domain's.
-- 2. The function's result type. A function declared RETURNS TABLE has its result's
--    columns rebuilt from its catalog row (argument names, modes and types, stored
--    compressed) every time it is called in FROM; a named composite type is read from
--    the type cache. The same four columns, so callers see no change. About 18,000
--    instructions less.
-- 3. The check that the arrays line up. PL/pgSQL prepares each expression it evaluates
--    once per transaction, that is once per command, and the check of eleven lengths was
--    the largest (about 40,000 instructions). The eight event arrays are no longer
--    counted: a shorter one is padded with NULLs by unnest, and every column of the log
--    is NOT NULL, so such a call is still refused, before anything is written, as a
--    not-null violation (23502) naming the column; the INSERT always runs, so that
--    event arrays given with heads but without stream ids are refused too, not ignored
--    (with neither, the call returns at once, as before). The heads are
--    still counted (a short array there would leave a head unchecked, not NULL in the
--    log), and every event's stream must still have a head. About 25,000 instructions
--    less.
--
--    Such a call is now refused later than before: after the lock and the checks of
--    the heads, so a stale head (ES409, ES412) is reported first; and when a domain's
--    rule fails on a padded row first, as a check violation (23514). The store never
--    makes such a call (UnitOfWork.chain, _commit_params); nothing maps 22023.
--
-- Nothing else changes for any call the store makes: the order of work, the lock, the
-- checks of the heads and the errors they raise.
--
-- Processes of an earlier version still running when this is applied read a table's
-- latest events with a query that does not repeat the index's condition, so for them
-- the planner walks each table's stream back from its head instead: correct, but as
-- slow as the table's history is long. Restart them.

CREATE FUNCTION events_latest_indexed_types() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY['RoundStarted', 'ShoeStarted', 'TableOpened', 'TableReconfigured'];

-- Built before the old index is dropped: building takes a SHARE lock (reads of the log
-- go on, writes wait), DROP INDEX an ACCESS EXCLUSIVE one, held to the end of the
-- migration; this way only for its last moment.
CREATE INDEX events_stream_state_type_version ON events (stream_id, type, version DESC)
    WHERE type = ANY (events_latest_indexed_types());
DROP INDEX events_stream_type_version;

CREATE TYPE events_commit_row AS (
    out_stream_id   text,
    out_version     integer,
    out_position    bigint,
    out_recorded_at timestamptz
);

DROP FUNCTION events_commit(text, text, text, jsonb, integer, text[], integer[], text[],
                            text[], integer[], text[], integer[], jsonb[], jsonb[], text[],
                            text[]);
CREATE FUNCTION events_commit(
    p_idempotency_scope       text,
    p_idempotency_key         text,
    p_idempotency_fingerprint text,
    p_idempotency_response    jsonb,
    p_idempotency_status      integer,
    -- one element per stream appended to or read: the version its first event follows
    -- (or it was read at), and that event's hash (NULL for a stream only read)
    p_head_stream_ids         text[],
    p_head_versions           integer[],
    p_head_hashes             text[],
    -- one element per event
    p_stream_ids              text[],
    p_versions                integer[],
    p_types                   text[],
    p_schema_versions         integer[],
    p_data                    jsonb[],
    p_metadata                jsonb[],
    p_previous_hashes         text[],
    p_hashes                  text[]
) RETURNS SETOF events_commit_row
LANGUAGE plpgsql
-- As in 0017: its statements always see a handful of rows; plan them once.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    heads        integer := coalesce(cardinality(p_head_stream_ids), 0);
    event_count  integer := coalesce(cardinality(p_stream_ids), 0);
    head         record;
    head_version integer;
    head_hash    text;
    unhashed     text;
    moved        record;   -- the first head whose hash is not the stream's ...
    moved_hash   text;     -- ... and the stream's hash (never NULL once it is set)
BEGIN
    IF p_idempotency_key IS NOT NULL THEN
        INSERT INTO idempotency_keys (scope, key, fingerprint, response, status)
        VALUES (p_idempotency_scope, p_idempotency_key, p_idempotency_fingerprint,
                p_idempotency_response, p_idempotency_status);
    END IF;

    IF event_count = 0 AND heads = 0 THEN
        RETURN;
    END IF;
    -- The heads' arrays must line up (unnest would pad a short one with NULLs: a head
    -- left unchecked), and every event's stream needs a head. The events' arrays are
    -- not counted here: a short one is padded with NULLs, which the log's NOT NULL
    -- columns refuse.
    IF coalesce(cardinality(p_head_versions), 0) IS DISTINCT FROM heads
       OR coalesce(cardinality(p_head_hashes), 0) IS DISTINCT FROM heads
       OR (event_count > 0 AND NOT coalesce(p_stream_ids <@ p_head_stream_ids, false)) THEN
        RAISE EXCEPTION 'events_commit: the heads must line up, and every stream needs a head'
            USING ERRCODE = '22023';
    END IF;
    -- A stream appended to needs its head's hash: the chain links onto it. Looked for
    -- only when some head has none (a stream only read), or the array is not a plain
    -- list, where array_position cannot look.
    IF heads > 0 AND NOT (array_ndims(p_head_hashes) = 1
                          AND array_position(p_head_hashes, NULL) IS NULL) THEN
        SELECT h.stream_id INTO unhashed
          FROM (SELECT unnest(p_head_stream_ids) AS stream_id,
                       unnest(p_head_hashes) AS previous_hash) AS h
         WHERE h.previous_hash IS NULL AND coalesce(h.stream_id = ANY (p_stream_ids), false)
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'events_commit: stream % is appended to, but its head has no hash',
                            unhashed
                USING ERRCODE = '22023';
        END IF;
    END IF;
    PERFORM pg_advisory_xact_lock(7310293372818011001);

    FOR head IN SELECT unnest(p_head_stream_ids) AS stream_id,
                       unnest(p_head_versions) AS expected,
                       unnest(p_head_hashes) AS previous_hash LOOP
        SELECT e.version, e.hash INTO head_version, head_hash
          FROM events e
         WHERE e.stream_id = head.stream_id
         ORDER BY e.version DESC
         LIMIT 1;
        IF NOT FOUND THEN
            head_version := 0;
            head_hash := repeat('0', 64);
        END IF;
        IF head_version IS DISTINCT FROM head.expected THEN
            RAISE EXCEPTION 'stream % is at version %, not %',
                            head.stream_id, head_version, head.expected
                USING ERRCODE = 'ES409',
                      DETAIL = jsonb_build_object('stream_id', head.stream_id,
                                                  'expected', head.expected,
                                                  'actual', head_version)::text;
        END IF;
        IF moved_hash IS NULL AND head.previous_hash IS NOT NULL
           AND head_hash IS DISTINCT FROM head.previous_hash THEN
            moved := head;  -- reported once no later head is found at another version
            moved_hash := head_hash;
        END IF;
    END LOOP;
    IF moved_hash IS NOT NULL THEN
        RAISE EXCEPTION 'stream % version % has hash %, not %',
                        moved.stream_id, moved.expected, moved_hash, moved.previous_hash
            USING ERRCODE = 'ES412',
                  DETAIL = jsonb_build_object('stream_id', moved.stream_id,
                                              'expected', moved.expected,
                                              'actual', moved.expected)::text;
    END IF;

    -- Run even with no events, so that event arrays given with heads but without any
    -- stream id are refused (as NULL stream ids) rather than ignored.
    RETURN QUERY
    INSERT INTO events AS e
           (stream_id, version, type, schema_version, data, metadata, previous_hash, hash)
    SELECT unnest(p_stream_ids), unnest(p_versions), unnest(p_types),
           unnest(p_schema_versions), unnest(p_data), unnest(p_metadata),
           unnest(p_previous_hashes), unnest(p_hashes)
    RETURNING e.stream_id::text, e.version::integer, e.position, e.recorded_at;
END
$$;
