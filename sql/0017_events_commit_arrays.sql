-- events_commit() takes its events as parallel arrays, one element per event, instead
-- of one JSON document. Less work per command: no JSON document to parse and take
-- apart, no loop per stream, no window and sort to link the batch; the heads of all
-- the streams are checked in one statement. bench/event_store.py measures
-- the difference (about a fifth of the database's time for a typical command).
--
-- The caller (casino/eventstore/unit_of_work.py, UnitOfWork.chain) numbers and links
-- the events: each event's version, previous hash and hash, and for each stream the
-- version and hash its first event follows (p_head_*). Under the append lock this
-- function checks that every stream of the batch has such a head and that the head is
-- the stream's head in the log; the (stream_id, version) key refuses a version given
-- twice. The rest (versions consecutive inside a batch, the links, every hash) is the
-- caller's, as hashes always were: the database cannot compute RFC 8785 canonical JSON,
-- and `casino db verify` recomputes the chains and versions of every stream. Checking
-- more here (working the heads out of the events, with sorts) cost a tenth of a command.
-- Events are inserted in the order given (unnest's order), so positions follow it.
--
-- Order of work, unchanged from 0001:
--  1. The idempotency record first, before any lock: a racer with the same key waits
--     here on the key, not on the append lock, and then fails on it (not on a version).
--  2. The append lock, held until commit (see events_serialize_appends).
--  3. The heads are read in a statement that starts after the lock was granted (a
--     volatile function takes a fresh snapshot per statement in READ COMMITTED), so it
--     sees every append committed while we waited. A stale expected version is refused
--     before the INSERT: it never consumes a global position.
--  4. The INSERT.

DROP FUNCTION events_commit(text, text, text, jsonb, integer, jsonb);

CREATE FUNCTION events_commit(
    p_idempotency_scope       text,
    p_idempotency_key         text,
    p_idempotency_fingerprint text,
    p_idempotency_response    jsonb,
    p_idempotency_status      integer,
    -- one element per appended stream: the version and hash its first event follows
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
) RETURNS TABLE (out_stream_id text, out_version integer, out_position bigint,
                 out_recorded_at timestamptz)
LANGUAGE plpgsql
-- Its statements and checks always see a handful of rows: plan them once. Left to
-- choose, Postgres re-planned the length check below on every call, which cost a
-- quarter of the whole function.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    stale record;
BEGIN
    IF p_idempotency_key IS NOT NULL THEN
        INSERT INTO idempotency_keys (scope, key, fingerprint, response, status)
        VALUES (p_idempotency_scope, p_idempotency_key, p_idempotency_fingerprint,
                p_idempotency_response, p_idempotency_status);
    END IF;

    IF coalesce(cardinality(p_stream_ids), 0) = 0 THEN
        RETURN;
    END IF;
    -- Parallel arrays of unequal length would be padded with NULLs by unnest: a head
    -- left unchecked, or an event missing a field. Every event's stream needs a head.
    IF cardinality(p_head_versions) IS DISTINCT FROM cardinality(p_head_stream_ids)
       OR cardinality(p_head_hashes) IS DISTINCT FROM cardinality(p_head_stream_ids)
       OR cardinality(p_versions) IS DISTINCT FROM cardinality(p_stream_ids)
       OR cardinality(p_types) IS DISTINCT FROM cardinality(p_stream_ids)
       OR cardinality(p_schema_versions) IS DISTINCT FROM cardinality(p_stream_ids)
       OR cardinality(p_data) IS DISTINCT FROM cardinality(p_stream_ids)
       OR cardinality(p_metadata) IS DISTINCT FROM cardinality(p_stream_ids)
       OR cardinality(p_previous_hashes) IS DISTINCT FROM cardinality(p_stream_ids)
       OR cardinality(p_hashes) IS DISTINCT FROM cardinality(p_stream_ids)
       OR NOT coalesce(p_stream_ids <@ p_head_stream_ids, false) THEN
        RAISE EXCEPTION 'events_commit: the arrays must line up, and every stream needs a head'
            USING ERRCODE = '22023';
    END IF;
    PERFORM pg_advisory_xact_lock(7310293372818011001);

    SELECT c.stream_id, c.expected, c.previous_hash,
           coalesce(h.version, 0) AS actual, coalesce(h.hash, repeat('0', 64)) AS actual_hash
      INTO stale
      FROM unnest(p_head_stream_ids, p_head_versions, p_head_hashes)
           AS c (stream_id, expected, previous_hash)
      LEFT JOIN LATERAL (SELECT e.version, e.hash FROM events e
                          WHERE e.stream_id = c.stream_id
                          ORDER BY e.version DESC LIMIT 1) AS h ON true
     WHERE coalesce(h.version, 0) IS DISTINCT FROM c.expected
        OR coalesce(h.hash, repeat('0', 64)) IS DISTINCT FROM c.previous_hash
     ORDER BY coalesce(h.version, 0) IS DISTINCT FROM c.expected DESC, c.stream_id
     LIMIT 1;
    IF FOUND THEN
        IF stale.actual IS DISTINCT FROM stale.expected THEN
            RAISE EXCEPTION 'stream % is at version %, not %',
                            stale.stream_id, stale.actual, stale.expected
                USING ERRCODE = 'ES409',
                      DETAIL = jsonb_build_object('stream_id', stale.stream_id,
                                                  'expected', stale.expected,
                                                  'actual', stale.actual)::text;
        END IF;
        RAISE EXCEPTION 'stream % version % has hash %, not %',
                        stale.stream_id, stale.actual, stale.actual_hash, stale.previous_hash
            USING ERRCODE = 'ES412',
                  DETAIL = jsonb_build_object('stream_id', stale.stream_id,
                                              'expected', stale.expected,
                                              'actual', stale.actual)::text;
    END IF;

    RETURN QUERY
    INSERT INTO events AS e
           (stream_id, version, type, schema_version, data, metadata, previous_hash, hash)
    SELECT * FROM unnest(p_stream_ids, p_versions, p_types, p_schema_versions, p_data,
                         p_metadata, p_previous_hashes, p_hashes)
    RETURNING e.stream_id, e.version, e.position, e.recorded_at;
END
$$;
