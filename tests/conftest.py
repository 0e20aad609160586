"""Settings for every test: whatever the service is started by (the app factory here,
gunicorn or Celery in a subprocess), it checks each command answer against the schema
that documents it, since answers are sent without going through marshmallow."""

from __future__ import annotations

import os

os.environ["CASINO_CHECK_ANSWERS"] = "1"
