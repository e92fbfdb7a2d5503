"""SCRIBES at CPU size: reusable extraction scripts rewarded by layout similarity.

The paper (Ye et al., ICLR 2026) fine-tunes an LLM with GRPO to write, from one page p of
a group G of structurally similar pages, a Python script that extracts the triples of
every page of G.  Its reward (exact, :func:`group_reward`) is

    r(p) = (1/|G|) Σ_{q∈G} fuzzyF1(ŷ_p(q), y*_q)       (greedy matching)

Here the LLM is replaced by a policy over a small script language
(:data:`SLOTS`): how paths are keyed (``anchor``: class names, absolute indices, or a
*literal* script that hard-codes the example page's values), the record container, the
subject rule, the predicate source and the object rule.  A choice is *resolved* on the
example page into XPaths (:func:`resolve`), compiled into a script that defines
``main(html)`` (:func:`compile_script`; it runs in the :mod:`~.sandbox`), and scored.

* :func:`train_policy` -- a contextual softmax policy (linear in page features) trained
  with the group-relative advantage A_i = (r_i - mean r) / std r over 8 rollouts per page,
  on the group reward or, for the ablation, on the self-score r(p→p) alone;
* :func:`search_program` -- plain search: every program of the language, the best
  self-score on the example page (its gold is given), ties broken at random (seeded);
* :func:`evaluate` -- All / Example / Holdout fuzzy F1 (Hungarian) of a script writer on
  test groups, by template and group size; :func:`token_costs` -- tokens of page text per
  extracted triple, script (one de-duplicated page) versus per-page extraction.

Not the paper: no LLM, no F1^LM judge (fuzzy F1 is reported, which is not the paper's
headline metric), no CommonCrawl stage.
"""

from __future__ import annotations

import inspect
import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core.results import Result
from infometer.core.seeding import Seed, as_generator

from . import _script_runtime as rt
from ._html import first_class, has_class, parse, repeated_groups
from .dedup import count_tokens, dedup_html
from .metrics import fuzzy_f1
from .sites import Group

__all__ = [
    "SLOTS",
    "Choice",
    "resolve",
    "compile_script",
    "run_choice",
    "group_reward",
    "page_features",
    "Policy",
    "train_policy",
    "search_program",
    "evaluate",
    "ScribesResult",
    "token_costs",
]

#: The script language: slot -> options.
SLOTS: dict[str, tuple[str, ...]] = {
    "anchor": ("class", "index", "literal"),
    "container": ("dl", "table", "repeat_largest", "repeat_richest", "parent_of_richest"),
    "subject": ("page_heading", "first_child", "preceding_heading"),
    "predicate": ("dt", "th", "header_row", "item_first_child"),
    "object": ("next_sibling", "rest_text", "aligned_cell"),
}
_SLOT_NAMES = tuple(SLOTS)


@dataclass(frozen=True)
class Choice:
    """One program of the script language (an option per slot)."""

    anchor: str
    container: str
    subject: str
    predicate: str
    object: str

    @classmethod
    def all(cls) -> list[Choice]:
        """Every program of the language (540)."""
        return [cls(*c) for c in itertools.product(*SLOTS.values())]

    def indices(self) -> tuple[int, ...]:
        """Option index of each slot."""
        return tuple(SLOTS[s].index(getattr(self, s)) for s in _SLOT_NAMES)


# ------------------------------------------------------------------- page analysis
_first_class = first_class
_has_class = has_class
_groups = repeated_groups


def _n_desc(el: Any) -> int:
    return sum(1 for d in el.iterdescendants() if isinstance(d.tag, str))


def _el_xpath(el: Any, anchor: str) -> str:
    """Absolute XPath of one element: by its class (or its parent's) or by indices."""
    tree = el.getroottree()
    if anchor == "class":
        c = _first_class(el)
        if c:
            return f"//{el.tag}[{_has_class(c)}]"
        p = el.getparent()
        if p is not None and _first_class(p):
            pos = [x for x in p if x.tag == el.tag].index(el) + 1
            return f"//{p.tag}[{_has_class(_first_class(p))}]/{el.tag}[{pos}]"
    return tree.getpath(el)


def _members_xpath(parent: Any, tag: str, cls: str, members: list[Any], anchor: str) -> str:
    tree = parent.getroottree()
    if anchor == "class":
        if cls:
            return f"//{tag}[{_has_class(cls)}]"
        if _first_class(parent):
            return f"//{parent.tag}[{_has_class(_first_class(parent))}]/{tag}"
    same = [x for x in parent if x.tag == tag]
    k = same.index(members[0]) + 1
    base = f"{tree.getpath(parent)}/{tag}"
    return base if k == 1 else f"{base}[position() >= {k}]"


def _items_xpath(rec: Any, anchor: str) -> str | None:
    """Relative XPath of the richest repeated group of elements inside a record."""
    best = None
    for parent, tag, cls, members in _groups(rec):
        if not all(any(isinstance(x.tag, str) for x in m) for m in members):
            continue
        key = len(members)
        if best is None or key > best[0]:
            best = (key, parent, tag, cls)
    if best is None:
        return None
    _, parent, tag, cls = best
    if anchor == "class" and cls:
        return f".//{tag}[{_has_class(cls)}]"
    tree = rec.getroottree()
    rp, pp = tree.getpath(rec), tree.getpath(parent)
    return "." + pp[len(rp) :] + f"/{tag}"


def resolve(choice: Choice, html: str) -> dict[str, Any] | None:
    """Resolve ``choice`` on an example page into a program (XPaths), or ``None``.

    A ``literal`` choice resolves as its class-keyed twin, runs it on the page and keeps
    the output as constants.

    Examples
    --------
    >>> from infometer.systems.extract.sites import make_group
    >>> page = make_group("book", "infobox", 1).pages[0]
    >>> prog = resolve(Choice("class", "dl", "page_heading", "dt", "next_sibling"), page.html)
    >>> prog["container"].startswith("//dl")
    True
    """
    if choice.anchor == "literal":
        twin = resolve(Choice("class", *[getattr(choice, s) for s in _SLOT_NAMES[1:]]), html)
        if twin is None:
            return None
        return {"literal": rt.run_program(twin, html)}
    root = parse(html)
    anchor = choice.anchor
    prog: dict[str, Any] = {
        "subject": choice.subject,
        "predicate": choice.predicate,
        "object": choice.object,
        "heading": "",
        "items": "",
    }
    rec: Any
    if choice.container == "dl":
        dls = root.xpath("//dl")
        if not dls:
            return None
        rec = max(dls, key=len)
        prog["container"] = _el_xpath(rec, anchor)
    elif choice.container == "table":
        ts = [t for t in root.xpath("//table") if t.xpath(".//tr[th and td]")]
        if not ts:
            return None
        rec = max(ts, key=lambda t: len(t.xpath(".//tr")))
        prog["container"] = _el_xpath(rec, anchor)
    else:
        gs = _groups(root)
        if not gs:
            return None
        if choice.container == "repeat_largest":
            parent, tag, cls, mem = max(
                gs, key=lambda g: (len(g[3]), -len(g[0].getroottree().getpath(g[0])))
            )
        else:
            parent, tag, cls, mem = max(gs, key=lambda g: np.mean([_n_desc(m) for m in g[3]]))
        if choice.container == "parent_of_richest":
            rec = parent
            prog["container"] = _el_xpath(parent, anchor)
        else:
            rec = mem[0]
            prog["container"] = _members_xpath(parent, tag, cls, mem, anchor)
    if choice.subject == "page_heading":
        hs = root.xpath("//h1") or root.xpath("//h2")
        if not hs:
            return None
        prog["heading"] = _el_xpath(hs[0], anchor)
    if choice.predicate == "dt":
        prog["items"] = ".//dt"
    elif choice.predicate == "th":
        prog["items"] = ".//th"
    elif choice.predicate == "item_first_child":
        xp = _items_xpath(rec, anchor)
        if xp is None:
            return None
        prog["items"] = xp
    return prog


_RUNTIME_SRC = inspect.getsource(rt).split('"""', 2)[2]


def compile_script(program: dict[str, Any]) -> str:
    """The Python source of a script defining ``main(html)`` for ``program``.

    Examples
    --------
    >>> src = compile_script({"literal": [["a", "b", "c"]]})
    >>> "def main(html)" in src
    True
    """
    if "literal" in program:
        return f"def main(html):\n    return {json.dumps(program['literal'], ensure_ascii=False)}\n"
    return (
        _RUNTIME_SRC + f"\nPROGRAM = {json.dumps(program, ensure_ascii=False, indent=1)}\n\n\n"
        "def main(html):\n    return run_program(PROGRAM, html)\n"
    )


def run_choice(program: dict[str, Any] | None, html: str) -> list[list[str]]:
    """Run a resolved program in-process (our own generated code; search and training).

    The sandbox runs the same code compiled by :func:`compile_script`.

    Examples
    --------
    >>> run_choice({"literal": [["a", "b", "c"]]}, "<p>x</p>")
    [['a', 'b', 'c']]
    """
    if program is None:
        return []
    if "literal" in program:
        return [list(t) for t in program["literal"]]
    try:
        return rt.run_program(program, html)
    except Exception:  # a bad XPath on a drifted page scores 0, like a failed script
        return []


def group_reward(
    outputs: Sequence[Sequence[Any]],
    golds: Sequence[Sequence[Any]],
    *,
    matching: str = "greedy",
) -> float:
    """SCRIBES' reward: the mean fuzzy F1 of one script's outputs over the group's pages.

    Parameters
    ----------
    outputs
        The script's triples on every page of the group (``[]`` for a failed run).
    golds
        The gold triples of the same pages, in the same order.

    Examples
    --------
    >>> g = [[("a", "b", "c")], [("d", "e", "f")]]
    >>> group_reward([g[0], []], g)
    0.5
    """
    if len(outputs) != len(golds) or not golds:
        raise ValueError(
            f"outputs ({len(outputs)}) and golds ({len(golds)}) must be one per page of a "
            "non-empty group"
        )
    return float(
        np.mean([fuzzy_f1(o, g, matching=matching).f1 for o, g in zip(outputs, golds, strict=True)])
    )


# -------------------------------------------------------------------------- policy
_FEATURES = (
    "dl",
    "kv_table",
    "header_row",
    "nested_list",
    "cards",
    "h1",
    "h2",
    "div_header",
)


def page_features(html: str) -> np.ndarray:
    """Binary structural features of a page (the policy's context).

    Examples
    --------
    >>> page_features("<html><body><h1>x</h1><dl><dt>a</dt><dd>b</dd></dl></body></html>")[:3]
    array([1., 0., 0.])
    """
    root = parse(html)
    gs = _groups(root)
    rich = [g for g in gs if np.mean([_n_desc(m) for m in g[3]]) >= 4]
    f = [
        float(bool(root.xpath("//dl[dt]"))),
        float(bool(root.xpath("//tr[th and td]"))),
        float(bool(root.xpath("//tr[th and not(td)]/following-sibling::tr[td]"))),
        float(bool(root.xpath("//li[ul/li]"))),
        float(any(g[1] == "div" for g in rich)),
        float(bool(root.xpath("//h1"))),
        float(bool(root.xpath("//h2"))),
        float(
            any(
                g[1] == "div"
                and len(g[3][0]) >= 2
                and g[0][0] is not g[3][0]
                and len(g[0][0]) == len(g[3][0])
                for g in gs
            )
        ),
    ]
    return np.array(f)


@dataclass
class Policy:
    """A contextual softmax policy: one weight matrix per slot, logits = W φ(page)."""

    weights: dict[str, np.ndarray]

    @classmethod
    def uniform(cls) -> Policy:
        """All-zero weights (every program equally likely)."""
        return cls({s: np.zeros((len(o), len(_FEATURES))) for s, o in SLOTS.items()})

    def probs(self, phi: np.ndarray) -> dict[str, np.ndarray]:
        """Option probabilities of each slot for features ``phi``."""
        out = {}
        for s, w in self.weights.items():
            z = w @ phi
            z = np.exp(z - z.max())
            out[s] = z / z.sum()
        return out

    def sample(self, phi: np.ndarray, rng: np.random.Generator) -> Choice:
        """One program drawn from the policy."""
        p = self.probs(phi)
        return Choice(*[SLOTS[s][int(rng.choice(len(SLOTS[s]), p=p[s]))] for s in _SLOT_NAMES])

    def greedy(self, phi: np.ndarray) -> Choice:
        """The most likely program."""
        p = self.probs(phi)
        return Choice(*[SLOTS[s][int(np.argmax(p[s]))] for s in _SLOT_NAMES])


def _rewards_for(
    choice: Choice, group: Group, i: int, reward: str, cache: dict[Any, float]
) -> float:
    key = (choice, group.name, i, reward)
    if key not in cache:
        prog = resolve(choice, group.pages[i].html)
        pages = [group.pages[i]] if reward == "self" else list(group.pages)
        outs = [run_choice(prog, p.html) for p in pages]
        cache[key] = group_reward(outs, [p.gold() for p in pages])
    return cache[key]


@dataclass(eq=False, repr=False)
class TrainLog(Result):
    """Mean group-relative reward per step of :func:`train_policy`."""

    rewards: list[float] = field(default_factory=list)
    reward: str = "group"


def check_training(groups: Sequence[Group], reward: str, rollouts: int, steps: int) -> None:
    """The arguments every GRPO-style trainer of script writers refuses, named."""
    if reward not in ("group", "self"):
        raise ValueError(f"reward must be 'group' or 'self', got {reward!r}")
    if not groups:
        raise ValueError("groups must hold at least one training group")
    if rollouts < 2:
        raise ValueError(
            f"rollouts must be at least 2 (the advantage is group-relative), got {rollouts}"
        )
    if isinstance(steps, bool) or not isinstance(steps, int | np.integer) or steps < 0:
        raise ValueError(f"steps must be a non-negative integer, got {steps!r}")


def train_policy(
    groups: Sequence[Group],
    *,
    reward: str = "group",
    steps: int = 150,
    rollouts: int = 8,
    lr: float = 0.5,
    seed: Seed = 0,
    progress: bool | None = None,
) -> tuple[Policy, TrainLog]:
    """Train the script-writing policy with the group-relative advantage (GRPO's, no LLM).

    Each step picks a training page p, draws ``rollouts`` programs, scores each by
    ``reward`` -- ``"group"`` (SCRIBES' r(p)) or ``"self"`` (r(p→p), the ablation) --
    and moves the weights along Σ_i A_i ∇ log π(a_i | φ(p)) / rollouts with
    A_i = (r_i - mean r) / (std r + 1e-6).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> from infometer.systems.extract.sites import make_sites
    >>> pol, log = train_policy(make_sites(2, 2), steps=2, rollouts=4)
    >>> len(log.rewards)
    2
    """
    check_training(groups, reward, rollouts, steps)
    from infometer.core.progress import progress_bar

    rng = as_generator(seed)
    pol = Policy.uniform()
    log = TrainLog(reward=reward)
    cache: dict[Any, float] = {}
    feats = {(g.name, i): page_features(p.html) for g in groups for i, p in enumerate(g.pages)}
    with progress_bar(
        total=steps, desc=f"GRPO ({reward} reward)", unit="step", progress=progress
    ) as bar:
        for _ in range(steps):
            g = groups[int(rng.integers(len(groups)))]
            i = int(rng.integers(len(g)))
            phi = feats[(g.name, i)]
            ch = [pol.sample(phi, rng) for _ in range(rollouts)]
            r = np.array([_rewards_for(c, g, i, reward, cache) for c in ch])
            adv = (r - r.mean()) / (r.std() + 1e-6)
            probs = pol.probs(phi)
            for s in _SLOT_NAMES:
                grad = np.zeros_like(pol.weights[s])
                for c, a in zip(ch, adv, strict=True):
                    onehot = np.zeros(len(SLOTS[s]))
                    onehot[SLOTS[s].index(getattr(c, s))] = 1.0
                    grad += a * np.outer(onehot - probs[s], phi)
                pol.weights[s] += lr * grad / rollouts
            log.rewards.append(float(r.mean()))
            bar.update(1)
    return pol, log


def search_program(
    html: str, gold: Sequence[Any], *, seed: Seed = 0, choices: Sequence[Choice] | None = None
) -> Choice:
    """Plain search: the program with the best self-score on one labelled page.

    Ties (many programs extract one page perfectly) are broken uniformly at random with
    ``seed``; the search cannot see the other pages of the group.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> from infometer.systems.extract.sites import make_group
    >>> page = make_group("film", "kv_table", 1).pages[0]
    >>> search_program(page.html, page.gold()).predicate
    'th'
    """
    rng = as_generator(seed)
    cands = list(choices or Choice.all())
    scores = []
    for c in cands:
        prog = resolve(c, html)
        scores.append(fuzzy_f1(run_choice(prog, html), gold, matching="greedy").f1 if prog else 0.0)
    s = np.array(scores)
    best = np.flatnonzero(s >= s.max() - 1e-12)
    return cands[int(rng.choice(best))]


# ---------------------------------------------------------------------- evaluation
@dataclass(frozen=True, eq=False, repr=False)
class ScribesResult(Result):
    """All / Example / Holdout fuzzy F1 of script writers on test groups."""

    rows: tuple[dict[str, Any], ...]

    def to_frame(self) -> Any:
        """Tidy frame: writer, group, template, group_size, example, split, f1."""
        import pandas as pd

        return pd.DataFrame(list(self.rows))

    def summary(self) -> Any:
        """Mean F1 by writer and split (All, Example, Holdout)."""
        df = self.to_frame()
        return df.pivot_table(index="writer", columns="split", values="f1", aggfunc="mean")

    def plot(self, ax: Any = None, path: Any = None) -> Any:
        """Bars of All / Example / Holdout F1 per writer."""
        from infometer.core.plot import finish, new_axes

        fig, ax = new_axes(ax, figsize=(6, 3.5))
        s = self.summary()
        cols = [c for c in ("All", "Example", "Holdout") if c in s.columns]
        x = np.arange(len(s.index))
        for k, c in enumerate(cols):
            ax.bar(x + (k - 1) * 0.27, s[c].to_numpy(), width=0.27, label=c)
        ax.set_xticks(x, s.index, rotation=15)
        ax.set_ylabel("fuzzy F1 (Hungarian)")
        ax.set_ylim(0, 1.05)
        ax.legend(frameon=False)
        ax.set_title("SCRIBES analogue: scripts written from one page, run on the group")
        return finish(ax, path)


def evaluate(
    writers: dict[str, Callable[[Group, int], Choice]],
    groups: Sequence[Group],
    *,
    sandbox: Any = None,
    progress: bool | None = None,
) -> ScribesResult:
    """Score script writers: each writes a program from page i of a group, run on all.

    ``writers[name](group, i) -> Choice``.  Every page of every group serves once as the
    example.  With ``sandbox`` (a :class:`~.sandbox.Sandbox`) the compiled script runs
    there (the contract end to end); otherwise in-process (the same code).

    Examples
    --------
    >>> from infometer.systems.extract.sites import make_group
    >>> g = make_group("book", "infobox", 2)
    >>> rule = Choice("class", "dl", "page_heading", "dt", "next_sibling")
    >>> float(evaluate({"rule": lambda grp, i: rule}, [g]).summary().loc["rule", "Holdout"])
    1.0
    """
    from infometer.core.progress import progress_bar

    rows = []
    total = len(writers) * sum(len(g) for g in groups)
    with progress_bar(
        total=total, desc="SCRIBES evaluation", unit="script", progress=progress
    ) as bar:
        for name, w in writers.items():
            for g in groups:
                golds = [p.gold() for p in g.pages]
                for i in range(len(g)):
                    ch = w(g, i)
                    prog = resolve(ch, g.pages[i].html)
                    if sandbox is not None and prog is not None:
                        res = sandbox.run(compile_script(prog), [p.html for p in g.pages])
                        outs = [list(r.triples) if r.ok else [] for r in res]
                    else:
                        outs = [run_choice(prog, p.html) for p in g.pages]
                    f = [fuzzy_f1(o, gd).f1 for o, gd in zip(outs, golds, strict=True)]
                    base = {
                        "writer": name,
                        "group": g.name,
                        "template": g.layout.template,
                        "group_size": len(g),
                        "example": i,
                        "program": json.dumps(ch.__dict__),
                    }
                    rows.append({**base, "split": "All", "f1": float(np.mean(f))})
                    rows.append({**base, "split": "Example", "f1": f[i]})
                    if len(g) > 1:
                        rows.append(
                            {**base, "split": "Holdout", "f1": float(np.mean(f[:i] + f[i + 1 :]))}
                        )
                    bar.update(1)
    return ScribesResult(tuple(rows))


def token_costs(group: Group, example: int = 0) -> dict[str, float]:
    """Tokens read per gold triple: a script from one de-duplicated page vs every page.

    ``script_tokens_per_triple`` = tokens of the de-duplicated example page / triples of
    the group; ``per_page_tokens_per_triple`` = tokens of every page's full HTML / the
    same triples; ``dedup_ratio`` = full / de-duplicated tokens of the example page.
    Tokens are word-and-punctuation tokens (:func:`~.dedup.count_tokens`).

    Examples
    --------
    >>> from infometer.systems.extract.sites import make_group
    >>> c = token_costs(make_group("book", "header_table", 4))
    >>> c["script_tokens_per_triple"] < c["per_page_tokens_per_triple"]
    True
    """
    n_tr = sum(len(p.gold()) for p in group.pages)
    full = [count_tokens(p.html) for p in group.pages]
    ded = count_tokens(dedup_html(group.pages[example].html))
    return {
        "group_size": len(group),
        "triples": n_tr,
        "script_tokens_per_triple": ded / n_tr,
        "per_page_tokens_per_triple": sum(full) / n_tr,
        "dedup_ratio": full[example] / ded,
    }
