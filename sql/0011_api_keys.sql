-- API keys. Only a SHA-256 of each key is kept: keys are 256-bit random secrets, so a
-- fast hash is enough (no password-stretching needed) and a stolen table reveals none.
CREATE TABLE api_keys (
    key_id      text PRIMARY KEY,
    key_hash    text        NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
    role        text        NOT NULL CHECK (role IN ('admin', 'table', 'auditor')),
    tables      text[]      NOT NULL DEFAULT '{}',
    label       text        NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz,
    CHECK (role = 'table' OR tables = '{}')
);
