-- casino_service: what the API and the workers may do in this database, and no more.
--
-- The log's triggers refuse UPDATE, DELETE and TRUNCATE for every role (0001), but the
-- owner of a table, or a superuser, can switch a trigger off (ALTER TABLE ... DISABLE
-- TRIGGER, or session_replication_role = replica) and then rewrite history. So in
-- production the service logs in as a role of its own that is a member of this one:
-- it owns nothing, and can neither disable a trigger, nor change a function or a
-- table, nor touch the log except to read it and to append to it. Migrations (and an
-- operator's `casino db rebuild --replace`, which truncates read models) run as the
-- owner. README.md, "Database roles", shows the setup. (On PostgreSQL 14 and older
-- every role may also create objects in schema public unless that is revoked.)
--
-- A role belongs to the whole server, not to one database: it is made here once, and
-- every database migrated later (or at the same time) finds it made. Where the role
-- running the migrations may not create roles, a superuser makes casino_service first.

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'casino_service') THEN
        CREATE ROLE casino_service NOLOGIN;
    END IF;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN
        NULL;  -- made by a migration of another database at the same moment
    WHEN insufficient_privilege THEN
        RAISE EXCEPTION 'role casino_service does not exist, and % may not create roles',
            current_user
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'a superuser runs CREATE ROLE casino_service NOLOGIN, then casino db upgrade runs again';
END
$$;

-- The grants, in one place: this migration applies them, and `casino db upgrade` applies
-- them again after every later migration, so that a table made by any later migration
-- is the service's to use, whichever owner ran it (ALTER DEFAULT PRIVILEGES would cover
-- only tables made by the role that ran this one). A migration that adds an
-- append-only table adds it below.
CREATE FUNCTION grant_service_role() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO casino_service;
    GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO casino_service;
    -- Append-only tables: read and append, nothing else (their triggers refuse the
    -- rest anyway; without the privilege the refusal comes before any trigger runs).
    REVOKE UPDATE, DELETE, TRUNCATE ON events, log_checkpoints FROM casino_service;
    -- Which migrations ran is the owner's record.
    REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON schema_migrations FROM casino_service;
END
$$;

REVOKE EXECUTE ON FUNCTION grant_service_role() FROM PUBLIC;

SELECT grant_service_role();
