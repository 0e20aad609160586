-- events_commit() as in 0021, with every unnest() moved from FROM into the select list,
-- and the check for a head without a hash run only when a head has none.
--
-- Why: unnest() in FROM is a function scan, which first copies the function's rows into
-- a tuplestore; in the select list it hands them on one by one (ProjectSet). The
-- function ran three such scans per command (the heads check, the heads loop, the
-- INSERT's source), each with a 16 kB block of its own. With them a command's memory
-- could peak past glibc's trim threshold (128 kB free at the top of the heap), and
-- then, depending on how a backend's heap happened to lie, every commit gave memory
-- back to the kernel (brk) and the next command took it again, faulting in fresh
-- pages. Counted with perf on pooled connections running bench/event_store.py's
-- command (3 events and an idempotency record): such a backend made 3 brk calls and
-- 3.5-5.5 page faults per command, and 400-425 us a command against 377-387 us with
-- this version (which made none, and 0.5 faults); in a backend without the churn the
-- two were within noise of each other. The check for a head without a hash, a query
-- of its own, now runs only for a command that reads a stream without appending to it.
-- bench/event_store.py at 1 writer, alternating the two versions: 45% and 45% of the
-- raw INSERT before, 47% and 47% after.
--
-- Nothing else changes: what is refused and with which code, which failure is reported
-- first, the order of work. Several arrays in one select list are read in step, and a
-- shorter one is padded with NULLs, as multi-argument unnest() in FROM does; arrays of
-- any shape are read in storage order, as before. The lengths are still checked first.

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

    IF coalesce(cardinality(p_stream_ids), 0) = 0 THEN
        RETURN;
    END IF;
    RETURN QUERY
    INSERT INTO events AS e
           (stream_id, version, type, schema_version, data, metadata, previous_hash, hash)
    SELECT unnest(p_stream_ids), unnest(p_versions), unnest(p_types),
           unnest(p_schema_versions), unnest(p_data), unnest(p_metadata),
           unnest(p_previous_hashes), unnest(p_hashes)
    RETURNING e.stream_id::text, e.version::integer, e.position, e.recorded_at;
END
$$;
