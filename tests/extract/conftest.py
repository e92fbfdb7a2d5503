import pytest

pytest.importorskip("lxml")
pytest.importorskip("rapidfuzz")
