"""TODO wing docstring."""
