"""Celery workers: they follow the log to reconcile money, audit the RNG and deliver
events; they never change history, and append their findings as events of their own."""
