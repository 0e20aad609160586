"""The application: command handlers that load state, decide, and append with read models."""
