-- A seat's last rounds are recalled in play order, which at a table is the round number
-- (opening times come from the deciding server's clock and need not rise with it). This
-- lets "the last N rounds of seat S at table T" walk the table's rounds backwards from
-- the newest and stop after N, instead of sorting every round the table ever played.
CREATE INDEX rm_rounds_table_number ON rm_rounds (table_id, round_number);
