"""What every test run shares."""

from exit_watch import pytest_unconfigure  # noqa: F401  (a run that is over must end)
