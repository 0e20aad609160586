"""The WSGI entry point for gunicorn: ``gunicorn 'casino.api.wsgi:app'``.

Importing this module builds the app from the environment (``Settings``): it connects
to the database and migrates it, so only the server imports it.
"""

from __future__ import annotations

from casino.api import create_app

app = create_app()
