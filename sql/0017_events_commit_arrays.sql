-- events_commit() takes its events as parallel arrays, one element per event, instead
-- of one JSON document: no JSON document to parse and take apart, no loop per stream;
-- the heads of all the streams are checked in one statement. bench/event_store.py
-- measures the difference (about a fifth of the database's time for a typical command).
--
-- The caller (casino/eventstore/unit_of_work.py, UnitOfWork.chain) numbers and links
-- the events: each event's version, previous hash and hash. Under the append lock this
-- function checks, for every stream in the batch, that
--   - its versions are consecutive, each given once;
--   - its first event continues the stream's head: version head + 1, previous hash the
--     head's hash (a new stream's head is version 0 and the zero hash);
-- and inserts the events in the order given, so positions follow versions. The links
-- inside a batch, like every hash, are the caller's: the database cannot compute RFC
-- 8785 canonical JSON, and `casino db verify` recomputes every one of them.
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
LANGUAGE plpgsql AS $$
DECLARE
    stale record;
    events integer := coalesce(cardinality(p_stream_ids), 0);
BEGIN
    IF p_idempotency_key IS NOT NULL THEN
        INSERT INTO idempotency_keys (scope, key, fingerprint, response, status)
        VALUES (p_idempotency_scope, p_idempotency_key, p_idempotency_fingerprint,
                p_idempotency_response, p_idempotency_status);
    END IF;

    IF events = 0 THEN
        RETURN;
    END IF;
    -- Arrays of unequal length would be padded with NULLs by unnest.
    IF cardinality(p_versions) IS DISTINCT FROM events
       OR cardinality(p_types) IS DISTINCT FROM events
       OR cardinality(p_schema_versions) IS DISTINCT FROM events
       OR cardinality(p_data) IS DISTINCT FROM events
       OR cardinality(p_metadata) IS DISTINCT FROM events
       OR cardinality(p_previous_hashes) IS DISTINCT FROM events
       OR cardinality(p_hashes) IS DISTINCT FROM events THEN
        RAISE EXCEPTION 'events_commit: the per-event arrays must all be of one length'
            USING ERRCODE = '22023';
    END IF;
    PERFORM pg_advisory_xact_lock(7310293372818011001);

    -- Per stream: its first event (the version and hash it follows), whether its
    -- versions are consecutive and single, and the stream's head. A wrong version is
    -- reported before a wrong hash, and streams in a stable order.
    SELECT b.stream_id, b.expected, b.previous_hash, b.consecutive,
           coalesce(h.version, 0) AS actual, coalesce(h.hash, repeat('0', 64)) AS actual_hash
      INTO stale
      FROM (SELECT u.stream_id,
                   min(u.version) - 1 AS expected,
                   (array_agg(u.previous_hash ORDER BY u.version))[1] AS previous_hash,
                   count(DISTINCT u.version) = count(*)
                       AND max(u.version) - min(u.version) + 1 = count(*) AS consecutive
              FROM unnest(p_stream_ids, p_versions, p_previous_hashes)
                   AS u (stream_id, version, previous_hash)
             GROUP BY u.stream_id) AS b
      LEFT JOIN LATERAL (SELECT e.version, e.hash FROM events e
                          WHERE e.stream_id = b.stream_id
                          ORDER BY e.version DESC LIMIT 1) AS h ON true
     WHERE b.consecutive IS NOT TRUE
        OR coalesce(h.version, 0) IS DISTINCT FROM b.expected
        OR coalesce(h.hash, repeat('0', 64)) IS DISTINCT FROM b.previous_hash
     ORDER BY b.consecutive IS NOT TRUE DESC,
              coalesce(h.version, 0) IS DISTINCT FROM b.expected DESC,
              b.stream_id
     LIMIT 1;
    IF FOUND THEN
        IF stale.consecutive IS NOT TRUE THEN
            RAISE EXCEPTION 'events_commit: the versions of stream % are not consecutive',
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

    RETURN QUERY
    INSERT INTO events AS e
           (stream_id, version, type, schema_version, data, metadata, previous_hash, hash)
    SELECT u.stream_id, u.version, u.type, u.schema_version, u.data, u.metadata,
           u.previous_hash, u.hash
      FROM unnest(p_stream_ids, p_versions, p_types, p_schema_versions, p_data, p_metadata,
                  p_previous_hashes, p_hashes) WITH ORDINALITY
           AS u (stream_id, version, type, schema_version, data, metadata, previous_hash,
                 hash, ord)
     ORDER BY u.ord
    RETURNING e.stream_id, e.version, e.position, e.recorded_at;
END
$$;
