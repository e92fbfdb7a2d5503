"""Docs that run as written (issues 31 §4, 41): every ```python block of ``docs/*.md`` and of
README.md's API tour runs, page by page in one namespace (each page opens with its data
set-up and says, in text a reader sees, that its blocks run in order after it), and every
docstring example of the package passes as a doctest.  A page that calls a deprecated
infometer name fails.

A block preceded by the visible line ``*Not run by the docs test: WHY.*`` is not run (it
needs a resource no test machine has, e.g. a 7B model on a GPU); one preceded by
``<!-- docs-test: slow -->`` makes its page a ``slow`` test.  Pages run in a temporary
folder (files they write go there).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_BLOCK = re.compile(
    r"(?P<marks>(?:(?:<!--[^\n]*-->|\*Not run by the docs test: [^\n]*\*)\s*\n)*)"
    r"```python\n(?P<body>.*?)^```",
    re.S | re.M,
)
#: What a page says, before its first block, so that a reader knows blocks build on it.
IN_ORDER = "The blocks of this page run in order, after this set-up"
#: A skipped block's reason, in text a reader sees (an HTML comment is not seen).
_SKIP = re.compile(r"\*Not run by the docs test: (?P<why>[^\n*]{8,})\.\*")


def _blocks(page: Path) -> tuple[list[tuple[int, str]], bool, int]:
    """(line, code) of the page's runnable python blocks, whether one is slow, and how
    many were skipped."""
    text = page.read_text()
    runnable, slow, skipped = [], False, 0
    for m in _BLOCK.finditer(text):
        marks = m.group("marks")
        if _SKIP.search(marks):
            skipped += 1
            continue
        slow = slow or "docs-test: slow" in marks
        runnable.append((text[: m.start("body")].count("\n") + 1, m.group("body")))
    return runnable, slow, skipped


def _pages() -> list:
    pages = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    params = []
    for p in pages:
        blocks, slow, _ = _blocks(p)
        if blocks:
            marks = [pytest.mark.slow] if slow else []
            params.append(pytest.param(p, id=p.name, marks=marks))
    return params


@pytest.mark.parametrize("page", _pages())
def test_docs_page_runs_as_written(page, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__main__"}  # as when pasted into a script
    blocks, _, _ = _blocks(page)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the docs show values; warnings are tested elsewhere
        # ... but a page that calls a deprecated name teaches what is going away
        warnings.filterwarnings(
            "error", message=r".* is deprecated and goes in infometer", category=DeprecationWarning
        )
        for line, code in blocks:
            try:
                exec(compile(code, f"{page.name}:{line}", "exec"), namespace)
            except Exception as exc:  # name the block that broke
                raise AssertionError(f"{page.name}, block at line {line}: {exc!r}") from exc
    import matplotlib.pyplot as plt

    plt.close("all")


def test_every_docs_page_with_code_opens_with_a_set_up():
    # the first python block of a page defines its data, so later blocks paste as they are,
    # and the page says so where a reader sees it
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = page.read_text()
        first = _BLOCK.search(text)
        if first is None:
            continue
        before = text[: first.start()]
        assert before.count("\n## ") == 0, f"{page.name}: the set-up block comes first"
        assert IN_ORDER in " ".join(before.split()), f"{page.name}: say {IN_ORDER!r}"


def test_skipped_blocks_say_why_where_a_reader_sees_it():
    for page in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]:
        text = page.read_text()
        assert "docs-test: skip" not in text, f"{page.name}: a skip reason in an HTML comment"
        for m in _BLOCK.finditer(text):
            if "Not run by the docs test" in m.group("marks"):
                assert _SKIP.search(m.group("marks")), f"{page.name}: say why it is not run"


def _modules() -> list[str]:
    import infometer

    names = ["infometer"]
    for info in pkgutil.walk_packages(infometer.__path__, "infometer."):
        if ".cli" in info.name or info.name.endswith("__main__"):
            continue
        names.append(info.name)
    return names


@pytest.mark.slow  # imports every module (torch, transformers): ~20 s
def test_docstring_examples_run():
    failures, tried, skipped = [], 0, []
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for name in _modules():
        try:
            mod = importlib.import_module(name)
        except ImportError as exc:  # an optional extra that is not installed
            skipped.append(f"{name}: {exc}")
            continue
        for test in finder.find(mod, name):
            if not test.examples or test.filename is None or "infometer" not in test.filename:
                continue
            tried += 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = runner.run(test, out=lambda s: failures.append(s))
            del result
    assert tried >= 20, f"only {tried} docstrings with examples found"
    assert not failures, "".join(failures[:5])
