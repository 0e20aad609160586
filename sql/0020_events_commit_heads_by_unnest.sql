-- events_commit() reads its heads with unnest(), as 0018 did, not by subscript as 0019
-- did: p_head_stream_ids[i] assumed one-dimensional arrays starting at 1. A caller's
-- array of another shape ('[0:0]={...}', '{{...}}') then read NULL or the wrong element,
-- and a stale head could pass unchecked (found in review; the service's own arrays always
-- start at 1, so it never sent one). unnest() takes any shape, in storage order, as the
-- events' own arrays are taken. Everything else is 0019's: what is refused and with which
-- code, which failure is reported first, one index probe per head under the lock.

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
    heads        integer := coalesce(cardinality(p_head_stream_ids), 0);
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

    IF coalesce(cardinality(p_stream_ids), 0) = 0 AND heads = 0 THEN
        RETURN;
    END IF;
    -- Parallel arrays of unequal length would be padded with NULLs by unnest: a head
    -- left unchecked, or an event missing a field. Every event's stream needs a head.
    IF coalesce(cardinality(p_head_versions), 0) IS DISTINCT FROM heads
       OR coalesce(cardinality(p_head_hashes), 0) IS DISTINCT FROM heads
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
    -- A stream appended to needs its head's hash: the chain links onto it.
    SELECT h.stream_id INTO unhashed
      FROM unnest(p_head_stream_ids, p_head_hashes) AS h (stream_id, previous_hash)
     WHERE h.previous_hash IS NULL AND coalesce(h.stream_id = ANY (p_stream_ids), false)
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'events_commit: stream % is appended to, but its head has no hash',
                        unhashed
            USING ERRCODE = '22023';
    END IF;
    PERFORM pg_advisory_xact_lock(7310293372818011001);

    FOR head IN SELECT h.stream_id, h.expected, h.previous_hash
                  FROM unnest(p_head_stream_ids, p_head_versions, p_head_hashes)
                       AS h (stream_id, expected, previous_hash) LOOP
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
