"""Event delivery to table systems: webhook subscriptions and their deliveries.

How an event travels, and what is promised:

1. **Fan-out** (``fanout``) follows the log per subscription from its checkpoint
   (``last_position``). A batch's delivery rows and the advanced checkpoint commit in one
   transaction, under the subscription's row lock (``FOR UPDATE SKIP LOCKED``): each
   event is enqueued exactly once per subscription, whichever worker dies when, and two
   workers never fan out one subscription at the same time.
2. **Sending** (``sender``) posts due deliveries, signed the Standard Webhooks way
   (``message``). *At least once*: a delivery is marked delivered only after a 2xx; a
   worker that dies in between leaves it pending, and it is sent again. *Ordered per
   stream*: a delivery is sent only when no earlier delivery of its subscription and
   stream is still pending, so at most one per stream is in flight. A failure is retried
   with exponential backoff (``policy``); after the last attempt the delivery is *dead*
   (dead-lettered) and the stream moves on: one event a receiver cannot take must not
   hold back every later event of its stream forever. Dead letters stay listed
   (``queries``) and a replay sends them again.
3. **Replay** (``replay``) rewinds a subscription's checkpoint to a position under a new
   generation: fan-out enqueues every matching event after it again, and the sender
   delivers them again, in order.

Everything here takes a psycopg connection (autocommit, as the pool's are) and answers
JSON-ready dicts for the HTTP layer; errors are the domain's (``InvalidCommand``,
``NotFound``, ``RuleViolation``).
"""
