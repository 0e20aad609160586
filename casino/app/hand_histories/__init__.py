"""Hand histories beyond one round: a seat's or a player's last rounds, recalled in full
(``recall``), and a player's or a table's rounds of a period, streamed as CSV or JSON
lines (``export``, in the shapes of ``formats``)."""
