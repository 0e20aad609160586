-- Checkpoints of the global log: the running hash of every event up to a position
-- (see casino/eventstore/verify.py for the exact fold). Each checkpoint extends the one
-- before it (previous_position), so the checkpoints form a single line that an auditor
-- can recompute, and a copy kept elsewhere proves that later logs only extend earlier ones.
CREATE TABLE log_checkpoints (
    position          bigint      PRIMARY KEY,
    previous_position bigint      NOT NULL UNIQUE,
    event_count       bigint      NOT NULL CHECK (event_count >= 0),
    hash              text        NOT NULL CHECK (octet_length(decode(hash, 'hex')) = 32),
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    CHECK (previous_position >= 0 AND previous_position < position)
);

COMMENT ON TABLE log_checkpoints IS
    'Append-only chain of hashes over the global event log; see verify.py.';

CREATE TRIGGER log_checkpoints_refuse_update_delete
    BEFORE UPDATE OR DELETE ON log_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change_to_append_only_table();

CREATE TRIGGER log_checkpoints_refuse_truncate
    BEFORE TRUNCATE ON log_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change_to_append_only_table();
