-- Reports asked of the workers (or made by the CLI), kept as the documents they handed
-- out: a report is a reading of the log at one time, so it is stored as made, with the
-- digest of its bytes, the parameters it was asked with, who asked and the software that
-- made it. A request's row is written when it is asked for; the worker fills in the rest.
CREATE TABLE report_documents (
    report_id        text        PRIMARY KEY,
    kind             text        NOT NULL,
    format           text        NOT NULL CHECK (format IN ('json', 'csv', 'pdf')),
    parameters       jsonb       NOT NULL,
    period_start     timestamptz NOT NULL,
    period_end       timestamptz NOT NULL,
    requested_by     text        NOT NULL,
    requested_at     timestamptz NOT NULL,
    made_at          timestamptz,
    software_version text,
    media_type       text,
    file_name        text,
    sha256           text,
    size             integer,
    content          bytea,
    CHECK ((made_at IS NULL) = (content IS NULL))
);
CREATE INDEX report_documents_requested ON report_documents (requested_at DESC);
