-- events_commit() also checks the streams a command only read. A command decides on
-- the state of every stream it loaded, and the service keeps recently used streams'
-- state between commands (casino/app/stream_cache.py) instead of reading them again.
-- So that no decision rests on state that has moved on, every stream the command read
-- is checked under the append lock, not only those it appends to: a head may now come
-- without events, and then with no hash (NULL: its version alone is checked). Such a
-- unit of work may append nothing at all, and is still checked.
--
-- The statement trigger that takes the append lock for any writer first tries the lock
-- in its WHEN condition: a writer that holds it already (events_commit() takes it before
-- its checks), or finds it free, now takes it there without a call into PL/pgSQL; only
-- a writer that has to wait for it runs the trigger function, which waits. Either way
-- the lock is held from before the INSERT to the end of the transaction, as in 0001.

DROP TRIGGER events_serialize_appends ON events;
CREATE TRIGGER events_serialize_appends
    BEFORE INSERT ON events
    FOR EACH STATEMENT
    WHEN (NOT pg_try_advisory_xact_lock(7310293372818011001))
    EXECUTE FUNCTION events_take_append_lock();

CREATE OR REPLACE FUNCTION events_commit(
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
) RETURNS TABLE (out_stream_id text, out_version integer, out_position bigint,
                 out_recorded_at timestamptz)
LANGUAGE plpgsql
-- As in 0017: its statements always see a handful of rows; plan them once.
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

    IF coalesce(cardinality(p_stream_ids), 0) = 0
       AND coalesce(cardinality(p_head_stream_ids), 0) = 0 THEN
        RETURN;
    END IF;
    -- Parallel arrays of unequal length would be padded with NULLs by unnest: a head
    -- left unchecked, or an event missing a field. Every event's stream needs a head.
    IF coalesce(cardinality(p_head_versions), 0) IS DISTINCT FROM coalesce(cardinality(p_head_stream_ids), 0)
       OR coalesce(cardinality(p_head_hashes), 0) IS DISTINCT FROM coalesce(cardinality(p_head_stream_ids), 0)
       OR coalesce(cardinality(p_versions), 0) IS DISTINCT FROM coalesce(cardinality(p_stream_ids), 0)
       OR coalesce(cardinality(p_types), 0) IS DISTINCT FROM coalesce(cardinality(p_stream_ids), 0)
       OR coalesce(cardinality(p_schema_versions), 0) IS DISTINCT FROM coalesce(cardinality(p_stream_ids), 0)
       OR coalesce(cardinality(p_data), 0) IS DISTINCT FROM coalesce(cardinality(p_stream_ids), 0)
       OR coalesce(cardinality(p_metadata), 0) IS DISTINCT FROM coalesce(cardinality(p_stream_ids), 0)
       OR coalesce(cardinality(p_previous_hashes), 0) IS DISTINCT FROM coalesce(cardinality(p_stream_ids), 0)
       OR coalesce(cardinality(p_hashes), 0) IS DISTINCT FROM coalesce(cardinality(p_stream_ids), 0)
       OR (coalesce(cardinality(p_stream_ids), 0) > 0
           AND NOT coalesce(p_stream_ids <@ p_head_stream_ids, false)) THEN
        RAISE EXCEPTION 'events_commit: the arrays must line up, and every stream needs a head'
            USING ERRCODE = '22023';
    END IF;
    PERFORM pg_advisory_xact_lock(7310293372818011001);

    -- A stream appended to needs its head's hash (the chain links onto it): one without
    -- is refused in the same statement as the heads are checked.
    SELECT c.stream_id, c.expected, c.previous_hash,
           coalesce(h.version, 0) AS actual, coalesce(h.hash, repeat('0', 64)) AS actual_hash,
           coalesce(c.previous_hash IS NULL AND c.stream_id = ANY (p_stream_ids), false)
               AS unhashed
      INTO stale
      FROM unnest(p_head_stream_ids, p_head_versions, p_head_hashes)
           AS c (stream_id, expected, previous_hash)
      LEFT JOIN LATERAL (SELECT e.version, e.hash FROM events e
                          WHERE e.stream_id = c.stream_id
                          ORDER BY e.version DESC LIMIT 1) AS h ON true
     WHERE coalesce(h.version, 0) IS DISTINCT FROM c.expected
        OR coalesce(c.previous_hash IS NULL AND c.stream_id = ANY (p_stream_ids), false)
        OR (c.previous_hash IS NOT NULL
            AND coalesce(h.hash, repeat('0', 64)) IS DISTINCT FROM c.previous_hash)
     ORDER BY coalesce(c.previous_hash IS NULL AND c.stream_id = ANY (p_stream_ids), false) DESC,
              coalesce(h.version, 0) IS DISTINCT FROM c.expected DESC, c.stream_id
     LIMIT 1;
    IF FOUND THEN
        IF stale.unhashed THEN
            RAISE EXCEPTION 'events_commit: stream % is appended to, but its head has no hash',
                            stale.stream_id
                USING ERRCODE = '22023';
        END IF;
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

    IF coalesce(cardinality(p_stream_ids), 0) = 0 THEN
        RETURN;
    END IF;
    RETURN QUERY
    INSERT INTO events AS e
           (stream_id, version, type, schema_version, data, metadata, previous_hash, hash)
    SELECT * FROM unnest(p_stream_ids, p_versions, p_types, p_schema_versions, p_data,
                         p_metadata, p_previous_hashes, p_hashes)
    RETURNING e.stream_id, e.version, e.position, e.recorded_at;
END
$$;
