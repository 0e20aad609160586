-- events_commit() checks the heads one by one, each with a single index probe, instead
-- of in one statement that joins every head to its latest event and sorts the failures.
-- A command checks one or two heads; that statement (an unnest, a lateral join, a
-- filter and a sort, run through the executor) cost a typical command about 50 us of
-- the database's time, the probes about 25 (pgbench, same database, alternating).
--
-- What is refused, and with which code, is unchanged from 0018. Which failure is
-- reported when several heads fail: a stream appended to without its head's hash
-- first (the arguments are wrong, checked before the lock); then the first head, in
-- the order given, whose version is not the stream's; then the first whose hash is not
-- (0018 took the smallest stream id instead of the first given). Order of work as in
-- 0001: the idempotency record, the append lock, the heads (each probe is a statement
-- that starts after the lock was granted, so it sees every append committed while we
-- waited), the INSERT.

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
    head_version integer;
    head_hash    text;
    moved        integer;  -- the first head whose hash is not the stream's ...
    moved_hash   text;     -- ... and the stream's hash
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
    FOR i IN 1 .. heads LOOP
        IF p_head_hashes[i] IS NULL AND p_head_stream_ids[i] = ANY (p_stream_ids) THEN
            RAISE EXCEPTION 'events_commit: stream % is appended to, but its head has no hash',
                            p_head_stream_ids[i]
                USING ERRCODE = '22023';
        END IF;
    END LOOP;
    PERFORM pg_advisory_xact_lock(7310293372818011001);

    FOR i IN 1 .. heads LOOP
        SELECT e.version, e.hash INTO head_version, head_hash
          FROM events e
         WHERE e.stream_id = p_head_stream_ids[i]
         ORDER BY e.version DESC
         LIMIT 1;
        IF NOT FOUND THEN
            head_version := 0;
            head_hash := repeat('0', 64);
        END IF;
        IF head_version IS DISTINCT FROM p_head_versions[i] THEN
            RAISE EXCEPTION 'stream % is at version %, not %',
                            p_head_stream_ids[i], head_version, p_head_versions[i]
                USING ERRCODE = 'ES409',
                      DETAIL = jsonb_build_object('stream_id', p_head_stream_ids[i],
                                                  'expected', p_head_versions[i],
                                                  'actual', head_version)::text;
        END IF;
        IF moved IS NULL AND p_head_hashes[i] IS NOT NULL
           AND head_hash IS DISTINCT FROM p_head_hashes[i] THEN
            moved := i;  -- reported once no later head is found at another version
            moved_hash := head_hash;
        END IF;
    END LOOP;
    IF moved IS NOT NULL THEN
        RAISE EXCEPTION 'stream % version % has hash %, not %',
                        p_head_stream_ids[moved], p_head_versions[moved], moved_hash,
                        p_head_hashes[moved]
            USING ERRCODE = 'ES412',
                  DETAIL = jsonb_build_object('stream_id', p_head_stream_ids[moved],
                                              'expected', p_head_versions[moved],
                                              'actual', p_head_versions[moved])::text;
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
