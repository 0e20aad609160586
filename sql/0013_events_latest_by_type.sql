-- The latest event of a given type in a stream, found by one index probe: commands fold
-- a long-lived stream (a table's, a player account's) from its latest events only.
CREATE INDEX events_stream_type_version ON events (stream_id, type, version DESC);
