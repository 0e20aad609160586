-- The event log's column rules move from eight CHECK constraints on the table (0001) to
-- eight domains, one per column, named after it (event_stream_id, ..., event_hash), so
-- that a refusal still names the column. What is refused does not change; how often the
-- rules are read does.
--
-- Why: at the start of every INSERT statement, Postgres reads each CHECK constraint of
-- the table from its stored text (stringToNode) and plans it again before the first row
-- is checked. events_commit() inserts a command's events in one statement, so a command
-- paid for reading and planning eight expressions. A domain's constraints are read and
-- planned once per connection (the type cache) and only prepared per statement.
-- Counted with callgrind (a single-user backend, 200 commands of bench/event_store.py's
-- shape: three events and an idempotency record): 1,071,000-1,089,000 instructions per
-- command with the table's CHECKs, 952,000-967,000 with these domains.
--
-- Order of work, and why:
--  1. The table's CHECKs go first: a column whose type changes has its constraints
--     re-checked against every row, a scan for nothing when they are about to go.
--  2. The columns become domains over their own types while the domains have no
--     constraint: such a change rewrites no row and keeps every index.
--  3. Adding a constraint to a domain checks every stored value against it, so a log
--     that broke a rule cannot be migrated silently. It all runs in one transaction,
--     holding the table's ACCESS EXCLUSIVE lock: no writer sees the rules missing.
-- The table's NOT NULLs stay where they are.
--
-- Processes of an earlier version still running when this is applied have prepared the
-- log's reads with the old column types, and Postgres refuses such a statement from then
-- on ("cached plan must not change result type", 0A000): restart them. This version's
-- store drops a connection's prepared statements and reads again when that happens
-- (casino/eventstore/postgres.py, casino/db/connection.py).

ALTER TABLE events
    DROP CONSTRAINT events_stream_id_check,
    DROP CONSTRAINT events_version_check,
    DROP CONSTRAINT events_type_check,
    DROP CONSTRAINT events_schema_version_check,
    DROP CONSTRAINT events_data_check,
    DROP CONSTRAINT events_metadata_check,
    DROP CONSTRAINT events_previous_hash_check,
    DROP CONSTRAINT events_hash_check;

CREATE DOMAIN event_stream_id AS text;
CREATE DOMAIN event_version AS integer;
CREATE DOMAIN event_type AS text;
CREATE DOMAIN event_schema_version AS integer;
CREATE DOMAIN event_data AS jsonb;
CREATE DOMAIN event_metadata AS jsonb;
CREATE DOMAIN event_previous_hash AS text;
CREATE DOMAIN event_hash AS text;

ALTER TABLE events
    ALTER COLUMN stream_id      TYPE event_stream_id,
    ALTER COLUMN version        TYPE event_version,
    ALTER COLUMN type           TYPE event_type,
    ALTER COLUMN schema_version TYPE event_schema_version,
    ALTER COLUMN data           TYPE event_data,
    ALTER COLUMN metadata       TYPE event_metadata,
    ALTER COLUMN previous_hash  TYPE event_previous_hash,
    ALTER COLUMN hash           TYPE event_hash;

ALTER DOMAIN event_stream_id ADD CONSTRAINT event_stream_id_not_empty CHECK (VALUE <> '');
ALTER DOMAIN event_version ADD CONSTRAINT event_version_from_1 CHECK (VALUE >= 1);
ALTER DOMAIN event_type ADD CONSTRAINT event_type_not_empty CHECK (VALUE <> '');
ALTER DOMAIN event_schema_version ADD CONSTRAINT event_schema_version_from_1
    CHECK (VALUE >= 1);
ALTER DOMAIN event_data ADD CONSTRAINT event_data_is_an_object
    CHECK (jsonb_typeof(VALUE) = 'object');
ALTER DOMAIN event_metadata ADD CONSTRAINT event_metadata_is_an_object
    CHECK (jsonb_typeof(VALUE) = 'object');
ALTER DOMAIN event_previous_hash ADD CONSTRAINT event_previous_hash_is_32_bytes
    CHECK (octet_length(decode(VALUE, 'hex')) = 32);
ALTER DOMAIN event_hash ADD CONSTRAINT event_hash_is_32_bytes
    CHECK (octet_length(decode(VALUE, 'hex')) = 32);

-- Changing a column's type drops its statistics: a log with events gets them back now,
-- not at the next autovacuum. An empty log (a new install) is left never analyzed, as it
-- was: analyzed while empty, the planner would trust "empty" and plan a sequential scan
-- for events_commit()'s head probe, cached as its generic plan while the log grows.
DO $$
BEGIN
    IF EXISTS (SELECT FROM events) THEN
        ANALYZE events;
    END IF;
END
$$;

-- events_commit() as in 0020, but for its RETURNING: RETURN QUERY wants the declared
-- result types exactly, and the columns are domains now.
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
    RETURNING e.stream_id::text, e.version::integer, e.position, e.recorded_at;
END
$$;
