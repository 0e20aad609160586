-- casino_service: what the API and the workers may do in this database, and no more.
--
-- The log's triggers refuse UPDATE, DELETE and TRUNCATE for every role (0001), but the
-- owner of a table, or a superuser, can switch a trigger off (ALTER TABLE ... DISABLE
-- TRIGGER, or session_replication_role = replica) and then rewrite history. So in
-- production the service logs in as a role of its own that is a member of this one:
-- it owns nothing, and can neither disable a trigger, nor change a function or a
-- table, nor touch the log except to read it and to append to it. Migrations (and an
-- operator's `casino db rebuild --replace`, which truncates read models) run as the
-- owner. README.md, "Database roles", shows the setup.
--
-- A role belongs to the whole server, not to one database: it is made here once, and
-- every database migrated later (or at the same time) finds it made. Where the role
-- running the migrations may not create roles, a DBA makes casino_service beforehand;
-- if it exists by neither way, this migration fails and says so, rather than leave a
-- database no least-privileged service can use.

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'casino_service') THEN
        CREATE ROLE casino_service NOLOGIN;
    END IF;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN
        NULL;  -- made by a migration of another database at the same moment
END
$$;

GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO casino_service;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO casino_service;

-- Append-only tables: read and append, nothing else (their triggers refuse the rest
-- anyway; without the privilege the refusal comes before any trigger runs).
REVOKE UPDATE, DELETE ON events, log_checkpoints FROM casino_service;

-- Which migrations ran is the owner's record.
REVOKE INSERT, UPDATE, DELETE ON schema_migrations FROM casino_service;

-- Tables and sequences later migrations make (as the same owner) get the same grants.
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO casino_service;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT USAGE, SELECT ON SEQUENCES TO casino_service;
