"""RNG audits: every closed shoe re-derived from its revealed seed, and the shuffle tested
statistically across shoes.

``shoes`` checks one shoe (commitment, timing, every dealt tile); ``statistics`` holds the
across-shoe tests, pure functions of plain data; ``rng`` loads the log and runs both;
``export`` writes the raw word stream for external batteries (NIST SP 800-22, Dieharder).
The audit never changes the log.
"""

SIGNIFICANCE = 0.001  # each test's default: it fails below this p-value
