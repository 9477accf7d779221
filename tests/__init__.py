"""hermeslite's tests.

The fixture modules tests/conftest.py registers as plugins are imported by it
first; registering them here, before any import, lets pytest rewrite their
asserts as it does a test's.
"""

import pytest

pytest.register_assert_rewrite("tests.server", "tests.fake_anthropic")
