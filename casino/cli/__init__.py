"""The ``casino`` command line: operators' and auditors' entry points."""
