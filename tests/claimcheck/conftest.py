"""Stop the scripted local servers after each test."""

import pytest


@pytest.fixture(autouse=True)
def _stop_scripted_servers():
    yield
    from .fake import stop_all

    stop_all()
