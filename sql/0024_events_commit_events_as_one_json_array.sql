-- events_commit() takes a command's events as one JSON array instead of eight parallel
-- arrays, and finds in one query whether any head is off. Measured with callgrind (per
-- command of bench/event_store.py: three events and an idempotency record; the
-- difference between 100 and 2,100 commands on one connection, a fresh database each):
-- 643,500 instructions of the database with 0023, 582,900 with this migration; the
-- writer's own work of making the arguments, 97,800 instructions before, 43,600 now
-- (casino/eventstore/postgres.py, _commit_params), and of the whole command, 509,200
-- before, 440,700 now.
--
-- 1. The events. Each is an array [stream_id, version, type, schema_version, data,
--    metadata, previous_hash, hash], in the order they are to take positions. The
--    writer makes the whole document in one call of orjson, with the data and metadata
--    spliced in as the canonical JSON already made for the hashes; before, it quoted
--    every element of eight array literals in Python. Here, one document is parsed
--    instead of eight arrays (each array's parse looks up its element type's input
--    function again, every call), and the INSERT reads a function scan instead of
--    eight set-returning functions under a subquery.
--    An event that is not an array of exactly eight items, or whose stream has no head,
--    is refused as the arrays' checks refused them before, but now as the row is read:
--    its stream id reads as NULL, which the log refuses (23502, the row in the error's
--    detail), as 0023 refused a short event array; an event that is not an array at
--    all, as jsonb_array_length refuses it (22023). So after the lock and the checks of
--    the heads (a stale head is reported first), and the positions drawn for the rows
--    before it are not used: a gap, as a refused row always left one. (A function
--    raising its own error there cost 21,000 instructions per command, called or not:
--    the executor looks it up every time it prepares the INSERT.) The store never makes
--    such a call.
--    One limit moves: a command's events together, as one jsonb value, must stay under
--    jsonb's 256 MB (before, each event's data under it, and each array under 1 GB).
--    A deal, the largest command, writes a few kilobytes.
-- 2. The heads. One query, after the lock, finds whether any head is not the stream's
--    head in the log; the heads are walked one by one, as before, only when one is off,
--    to report the same head with the same error as before: the first at a stale
--    version (ES409), else the first whose hash is not the stream's (ES412). About
--    21,000 instructions less, for a command's single head.
--
-- Nothing else changes: the order of work (the idempotency record, the lock, the
-- heads, the INSERT), the heads' arguments and their checks (the message of heads
-- that do not line up no longer speaks of the events), the result. Processes of
-- an earlier version call the function with the arguments it no longer takes:
-- restart them.

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
    -- a JSON array of the events, each
    -- [stream_id, version, type, schema_version, data, metadata, previous_hash, hash]
    p_events                  jsonb
) RETURNS SETOF events_commit_row
LANGUAGE plpgsql
-- As in 0017: its statements always see a handful of rows; plan them once.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    heads        integer := coalesce(cardinality(p_head_stream_ids), 0);
    event_count  integer := coalesce(jsonb_array_length(p_events), 0);
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
    -- left unchecked). That every event has its eight items and its stream a head is
    -- checked as the events are read: else its stream id reads as NULL.
    IF coalesce(cardinality(p_head_versions), 0) IS DISTINCT FROM heads
       OR coalesce(cardinality(p_head_hashes), 0) IS DISTINCT FROM heads THEN
        RAISE EXCEPTION 'events_commit: the heads must line up'
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
         WHERE h.previous_hash IS NULL
           AND EXISTS (SELECT FROM jsonb_array_elements(p_events) AS x (e)
                        WHERE x.e ->> 0 = h.stream_id)
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'events_commit: stream % is appended to, but its head has no hash',
                            unhashed
                USING ERRCODE = '22023';
        END IF;
    END IF;
    PERFORM pg_advisory_xact_lock(7310293372818011001);

    -- One query finds whether any head is off; only then are the heads walked one by
    -- one, to find the one to report.
    PERFORM h.stream_id
      FROM (SELECT unnest(p_head_stream_ids) AS stream_id,
                   unnest(p_head_versions) AS expected,
                   unnest(p_head_hashes) AS previous_hash) AS h
      LEFT JOIN LATERAL (SELECT e.version, e.hash FROM events e
                          WHERE e.stream_id = h.stream_id
                          ORDER BY e.version DESC LIMIT 1) AS l ON true
     WHERE coalesce(l.version, 0) IS DISTINCT FROM h.expected
        OR (h.previous_hash IS NOT NULL
            AND coalesce(l.hash, repeat('0', 64)) IS DISTINCT FROM h.previous_hash)
     LIMIT 1;
    IF FOUND THEN
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
    END IF;

    RETURN QUERY
    INSERT INTO events AS e
           (stream_id, version, type, schema_version, data, metadata, previous_hash, hash)
    SELECT CASE WHEN jsonb_array_length(x.e) = 8 AND x.e ->> 0 = ANY (p_head_stream_ids)
                THEN x.e ->> 0 END,
           (x.e ->> 1)::integer, x.e ->> 2, (x.e ->> 3)::integer, x.e -> 4, x.e -> 5,
           x.e ->> 6, x.e ->> 7
      FROM jsonb_array_elements(p_events) AS x (e)
    RETURNING e.stream_id::text, e.version::integer, e.position, e.recorded_at;
END
$$;
