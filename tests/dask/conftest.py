"""A LocalCluster of two worker processes, shared by the tests of one module."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        yield client
