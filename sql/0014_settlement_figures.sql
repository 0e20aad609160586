-- What settlement reports read, kept on each round by the same projection as the rest of
-- its row (casino/readmodels/projection.py): the handle and payouts of each bet kind, the
-- sums of squared stakes (for the exact variance of the win), each seat's point total,
-- and the void or correction made to the round, with who made it and why.
--
-- The stakes' squares reach 2^106 and are kept as numeric. Rows written before this
-- migration are filled from the seats and the log below, so an upgraded database
-- reports its whole history (`casino db rebuild` checks the result like any read model).

ALTER TABLE rm_rounds
    ADD COLUMN main_handle       bigint      NOT NULL DEFAULT 0,
    ADD COLUMN doubles_handle    bigint      NOT NULL DEFAULT 0,
    ADD COLUMN doubles_wagers    integer     NOT NULL DEFAULT 0,
    ADD COLUMN main_squares      numeric     NOT NULL DEFAULT 0,
    ADD COLUMN doubles_squares   numeric     NOT NULL DEFAULT 0,
    ADD COLUMN main_payouts      bigint      NOT NULL DEFAULT 0,
    ADD COLUMN doubles_payouts   bigint      NOT NULL DEFAULT 0,
    ADD COLUMN totals            integer[],
    ADD COLUMN adjusted_at       timestamptz,
    ADD COLUMN adjusted_by       text,
    ADD COLUMN adjustment_reason text,
    ADD COLUMN refunded          bigint      NOT NULL DEFAULT 0,
    ADD COLUMN reclaimed         bigint      NOT NULL DEFAULT 0;

UPDATE rm_rounds r
SET main_handle = s.main_handle,
    doubles_handle = s.doubles_handle,
    doubles_wagers = s.doubles_wagers,
    main_squares = s.main_squares,
    doubles_squares = s.doubles_squares,
    main_payouts = s.main_payouts,
    doubles_payouts = s.doubles_payouts,
    totals = CASE WHEN r.status IN ('settled', 'reversed') THEN s.totals END
FROM (
    SELECT round_id,
           sum(main_stake) AS main_handle,
           sum(doubles_stake) AS doubles_handle,
           count(*) FILTER (WHERE doubles_stake > 0) AS doubles_wagers,
           sum(main_stake::numeric * main_stake) AS main_squares,
           sum(doubles_stake::numeric * doubles_stake) AS doubles_squares,
           coalesce(sum(main_payout), 0) AS main_payouts,
           coalesce(sum(doubles_payout), 0) AS doubles_payouts,
           array_agg(total ORDER BY seat) AS totals
    FROM rm_seats
    GROUP BY round_id
) s
WHERE r.round_id = s.round_id;

UPDATE rm_rounds r
SET adjusted_at = (e.metadata->>'at')::timestamptz,
    adjusted_by = e.data->>'actor',
    adjustment_reason = e.data->>'reason',
    refunded = (e.data->>'refunded')::bigint,
    reclaimed = coalesce((e.data->>'reclaimed')::bigint, 0)
FROM events e
WHERE e.type IN ('RoundVoided', 'SettlementReversed')
  AND e.stream_id = 'round-' || r.round_id;

-- A report reads the rounds settled in a period, and the voids and corrections made in it.
CREATE INDEX rm_rounds_settled ON rm_rounds (closed_at)
    WHERE status IN ('settled', 'reversed');
CREATE INDEX rm_rounds_adjusted ON rm_rounds (adjusted_at)
    WHERE adjusted_at IS NOT NULL;
