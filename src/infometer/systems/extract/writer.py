"""A SCRIBES writer that composes scripts from the pages' own structure.

The slot policy of :mod:`.scribes` picks one of 540 hand-built programs from 8 binary
page features: in effect a template -> program table, which scores 0 on a template it
never trained on.  This writer instead *composes* candidate programs from the example
page's structure (:mod:`._compose`: repeated-sibling groups as records, label elements
and their values by sibling / rest-of-text / colon / grid alignment, subjects by paths
inside the record, page headings or preceding headings; every path generalised across
the page's records by anti-unification, in three anchor styles) and scores them with a
**learned policy** over gold-free features of each candidate's output on the example
pages (labels recur across records and pages while values differ, subjects are link
texts, how much of the page is explained, the anchor style ...).  The policy is a softmax,
linear in those features, trained with GRPO's group-relative advantage over 8 rollouts
on SCRIBES' group reward (or, for the ablation, the self-score).  Nothing in the policy
names a template, so it can write for a template family it never trained on.

The writer sees the example page and ``n_context`` more pages of the group *without
their gold* (the XPath generalisation across the group's example pages); scores split the
group into the example, the context pages and the **holdout** pages (neither).

* :class:`WriterPolicy`, :func:`train_writer`, :func:`write` / :func:`write_script`;
* :func:`search_composed` -- the best composed program on the example page's gold (ties
  at random): composition with search, no learning;
* :func:`evaluate_writers` -- All / Example / Holdout fuzzy F1 of any writers, with the
  same split for all; :func:`per_page_f1` -- the per-page extractor (a program written
  from every page for that page alone);
* :func:`leave_one_template_out` and :func:`drift_recovery` -- the generalisation and
  drift tables of benchmarks/results/extract.md.

What is a stand-in: the writer is not an LLM; its primitives were designed with the nine
template families of :mod:`.sites` in view (the policy's *training* excludes the held-out
family, the primitive set does not); F1^LM is not computed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core.results import Result
from infometer.core.seeding import Seed, as_generator, resolve_seed

from ._compose import FEATURES, Candidate, compose, features, run_candidate
from ._html import parse
from .metrics import fuzzy_f1
from .sites import ALL_TEMPLATES, DOMAINS, Group, make_group, rerender

__all__ = [
    "WriterPolicy",
    "Prepared",
    "prepare",
    "train_writer",
    "write",
    "write_script",
    "search_composed",
    "context_of",
    "evaluate_writers",
    "per_page_f1",
    "GeneralisationResult",
    "leave_one_template_out",
    "drift_recovery",
    "MAX_GROUPS",
    "SCRIPT_DRIFTS",
]

#: The drifts a script can meet (``pagination`` is left out: a script follows no link).
SCRIPT_DRIFTS: tuple[str, ...] = (
    "class_rename",
    "wrapper",
    "column_order",
    "grid",
    "relabel",
    "redesign",
)
#: Most groups one call may generate (templates x groups), checked before generating.
MAX_GROUPS = 2_000


def context_of(n_pages: int, example: int, n_context: int) -> list[int]:
    """Indices of the context pages of ``example``: the next ``n_context`` pages, cyclically.

    Examples
    --------
    >>> context_of(4, 3, 1)
    [0]
    """
    k = min(int(n_context), n_pages - 1)
    return [(example + j) % n_pages for j in range(1, k + 1)]


@dataclass
class Prepared:
    """The candidates of one example page: programs, features and group outputs.

    ``outputs[c][q]`` are candidate ``c``'s triples on page ``q`` of the group.
    """

    group: str
    example: int
    context: tuple[int, ...]
    candidates: list[Candidate]
    X: np.ndarray
    outputs: list[list[list[list[str]]]]

    def rewards(self, golds: Sequence[Sequence[Any]], kind: str = "group") -> np.ndarray:
        """SCRIBES' group reward (greedy fuzzy F1, mean over the group) or the self-score."""
        out = []
        for outs in self.outputs:
            if kind == "self":
                out.append(fuzzy_f1(outs[self.example], golds[self.example], matching="greedy").f1)
            else:
                out.append(
                    float(
                        np.mean(
                            [
                                fuzzy_f1(o, g, matching="greedy").f1
                                for o, g in zip(outs, golds, strict=True)
                            ]
                        )
                    )
                )
        return np.array(out)


def prepare(group: Group, example: int, *, n_context: int = 1) -> Prepared:
    """Compose the candidates of page ``example`` and run each on every page of the group.

    Examples
    --------
    >>> g = make_group("book", "infobox", 3, seed=1)
    >>> p = prepare(g, 0)
    >>> p.X.shape[1] == len(FEATURES) and len(p.outputs[0]) == 3
    True
    """
    ctx = context_of(len(group), example, n_context)
    pages = group.pages
    cands = compose(pages[example].html, context=[pages[j].html for j in ctx])
    roots = [parse(p.html) for p in pages]
    seen = [example, *ctx]
    X, outs, cs = [], [], []
    for cand, _ in cands:
        o = [run_candidate(cand.program, r) for r in roots]
        X.append(features(cand, [o[j] for j in seen], [roots[j] for j in seen]))
        outs.append(o)
        cs.append(cand)
    Xa = np.array(X, dtype=float).reshape(len(cs), len(FEATURES))
    return Prepared(group.name, example, tuple(ctx), cs, Xa, outs)


@dataclass
class WriterPolicy:
    """A softmax over composed candidates, linear in their features: p(c) ∝ exp(θ·x_c)."""

    theta: np.ndarray = field(default_factory=lambda: np.zeros(len(FEATURES)))

    def probs(self, X: np.ndarray) -> np.ndarray:
        """Choice probabilities of candidates with feature rows ``X``."""
        z = X @ self.theta
        z = np.exp(z - z.max())
        return z / z.sum()

    def choose(self, X: np.ndarray) -> int:
        """The most likely candidate (the first of ties)."""
        return int(np.argmax(X @ self.theta))

    def weights(self) -> dict[str, float]:
        """θ by feature name."""
        return dict(zip(FEATURES, (float(t) for t in self.theta), strict=True))


def train_writer(
    groups: Sequence[Group],
    *,
    reward: str = "group",
    steps: int = 300,
    rollouts: int = 8,
    lr: float = 0.5,
    n_context: int = 1,
    seed: Seed = 0,
    prepared: dict[tuple[str, int], Prepared] | None = None,
    progress: bool | None = None,
) -> tuple[WriterPolicy, Any]:
    """Train the writer's policy with the group-relative advantage (GRPO's, no LLM).

    Returns the policy and a :class:`~.scribes.TrainLog` (mean reward per step).
    Each step picks a training page p, samples ``rollouts`` candidates from the policy,
    scores each by ``reward`` -- ``"group"`` (SCRIBES' r(p): the mean greedy fuzzy F1
    over the whole group) or ``"self"`` (r(p→p), the ablation) -- and moves θ along
    Σ_i A_i (x_i − E_π x) / rollouts with A_i = (r_i − mean r) / (std r + 1e-6).

    ``prepared`` caches :func:`prepare` by (group name, page) across calls.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> gs = [make_group("book", "infobox", 3, seed=1), make_group("film", "div_grid", 3)]
    >>> pol, log = train_writer(gs, steps=5, progress=False)
    >>> len(log.rewards)
    5
    """
    from infometer.core.progress import progress_bar

    from .scribes import TrainLog, check_training

    check_training(groups, reward, rollouts, steps)

    cache = prepared if prepared is not None else {}
    rng = as_generator(seed)
    pol = WriterPolicy()
    log = TrainLog(reward=reward)
    golds = {g.name: [p.gold() for p in g.pages] for g in groups}
    rewards: dict[tuple[str, int], np.ndarray] = {}
    with progress_bar(
        total=steps, desc=f"writer GRPO ({reward} reward)", unit="step", progress=progress
    ) as bar:
        for _ in range(steps):
            g = groups[int(rng.integers(len(groups)))]
            i = int(rng.integers(len(g)))
            key = (g.name, i)
            if key not in cache:
                cache[key] = prepare(g, i, n_context=n_context)
            prep = cache[key]
            bar.update(1)
            if len(prep.candidates) == 0:
                log.rewards.append(0.0)
                continue
            if key not in rewards:
                rewards[key] = prep.rewards(golds[g.name], reward)
            p = pol.probs(prep.X)
            pick = rng.choice(len(p), size=rollouts, p=p)
            r = rewards[key][pick]
            log.rewards.append(float(r.mean()))
            adv = (r - r.mean()) / (r.std() + 1e-6)
            grad = (adv[:, None] * (prep.X[pick] - p @ prep.X)).sum(axis=0) / rollouts
            pol.theta = pol.theta + lr * grad
    return pol, log


def write(policy: WriterPolicy, html: str, *, context: Sequence[str] = ()) -> Candidate | None:
    """The composed program the policy writes from an example page (gold-free).

    Examples
    --------
    >>> g = make_group("film", "kv_table", 2, seed=3)
    >>> write(WriterPolicy(), g.pages[0].html).program["kind"]
    'compose'
    """
    cands = compose(html, context=context)
    if not cands:
        return None
    roots = [parse(html)] + [parse(h) for h in context]
    X = np.array([features(c, outs, roots) for c, outs in cands])
    return cands[policy.choose(X)][0]


def write_script(policy: WriterPolicy, html: str, *, context: Sequence[str] = ()) -> str:
    """The Python source (``main(html)``) of the script the policy writes; it runs in the
    :mod:`.sandbox` like any script (an empty page set of candidates gives a script that
    returns ``[]``).

    Examples
    --------
    >>> g = make_group("book", "infobox", 2, seed=3)
    >>> "def main(html)" in write_script(WriterPolicy(), g.pages[0].html)
    True
    """
    from .scribes import compile_script

    cand = write(policy, html, context=context)
    if cand is None:
        return "def main(html):\n    return []\n"
    return compile_script(cand.program)


def search_composed(html: str, gold: Sequence[Any], *, seed: Seed = 0) -> Candidate | None:
    """Composition with search: the candidate with the best greedy fuzzy F1 on the example
    page's gold, ties broken uniformly at random (``seed``); no learning, no context.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> g = make_group("book", "div_grid", 2, seed=1)
    >>> c = search_composed(g.pages[0].html, g.pages[0].gold())
    >>> fuzzy_f1(run_candidate(c.program, parse(g.pages[0].html)), g.pages[0].gold()).f1
    1.0
    """
    cands = compose(html)
    if not cands:
        return None
    s = np.array([fuzzy_f1(outs[0], gold, matching="greedy").f1 for _, outs in cands])
    best = np.flatnonzero(s >= s.max() - 1e-12)
    return cands[int(as_generator(seed).choice(best))][0]


# ---------------------------------------------------------------------- evaluation
#: A writer: (group, example index, context indices) -> a program dict (or None).
Writer = Callable[[Group, int, Sequence[int]], "dict[str, Any] | None"]


def _scores(
    prog: dict[str, Any] | None, group: Group, roots: Sequence[Any], sandbox: Any = None
) -> list[float]:
    """Fuzzy F1 (Hungarian) of a program on every page of a group (``roots``: parsed).

    With ``sandbox`` (a :class:`~.sandbox.Sandbox`) the compiled script runs there, one
    sandbox for the group's pages; a page whose run fails scores 0.
    """
    from .scribes import compile_script, run_choice

    if sandbox is not None and prog is not None:
        res = sandbox.run(compile_script(prog), [p.html for p in group.pages])
        return [
            fuzzy_f1([list(t) for t in r.triples] if r.ok else [], p.gold()).f1
            for r, p in zip(res, group.pages, strict=True)
        ]
    out = []
    for p, r in zip(group.pages, roots, strict=True):
        if prog is not None and prog.get("kind") != "compose":
            got = run_choice(prog, p.html)
        else:
            got = run_candidate(prog, r)
        out.append(fuzzy_f1(got, p.gold()).f1)
    return out


def evaluate_writers(
    writers: dict[str, Writer],
    groups: Sequence[Group],
    *,
    n_context: int = 1,
    sandbox: Any = None,
    progress: bool | None = None,
) -> list[dict[str, Any]]:
    """All / Example / Holdout fuzzy F1 (Hungarian) of writers, every page once the example.

    Every writer is scored on the same split: the example page, its ``n_context`` context
    pages (which only context-reading writers look at, without gold) and the holdout
    pages (the rest).  ``writers[name](group, i, context) -> program``; with ``sandbox``
    the compiled script runs there (the contract end to end).

    Examples
    --------
    >>> g = make_group("book", "infobox", 3, seed=1)
    >>> rows = evaluate_writers({"s": lambda g, i, c: None}, [g], progress=False)
    >>> sorted({r["split"] for r in rows})
    ['All', 'Example', 'Holdout']
    """
    from infometer.core.progress import progress_bar

    rows: list[dict[str, Any]] = []
    total = len(writers) * sum(len(g) for g in groups)
    with progress_bar(total=total, desc="script writers", unit="script", progress=progress) as bar:
        for name, w in writers.items():
            for g in groups:
                roots = [parse(p.html) for p in g.pages]
                for i in range(len(g)):
                    ctx = context_of(len(g), i, n_context)
                    prog = w(g, i, ctx)
                    f = _scores(prog, g, roots, sandbox)
                    hold = [f[q] for q in range(len(g)) if q != i and q not in ctx]
                    base = {
                        "writer": name,
                        "group": g.name,
                        "template": g.layout.template,
                        "example": i,
                        "program": json.dumps(prog, sort_keys=True) if prog else "",
                    }
                    rows.append({**base, "split": "All", "f1": float(np.mean(f))})
                    rows.append({**base, "split": "Example", "f1": f[i]})
                    if hold:
                        rows.append({**base, "split": "Holdout", "f1": float(np.mean(hold))})
                    bar.update(1)
    return rows


def per_page_f1(
    policy: WriterPolicy, group: Group, *, n_context: int = 1, sandbox: Any = None
) -> list[float]:
    """The per-page extractor: on every page a program written from that page (and its
    context pages, unlabelled) and applied to that page alone; fuzzy F1 per page.  With
    ``sandbox`` each page's script runs there.

    Examples
    --------
    >>> g = make_group("book", "infobox", 2, seed=1)
    >>> len(per_page_f1(WriterPolicy(), g))
    2
    """
    out = []
    for i, p in enumerate(group.pages):
        ctx = [group.pages[j].html for j in context_of(len(group), i, n_context)]
        cand = write(policy, p.html, context=ctx)
        one = Group(group.name, group.layout, (p,))
        out.append(_scores(cand.program if cand else None, one, [parse(p.html)], sandbox)[0])
    return out


# ------------------------------------------------------------------ generalisation
@dataclass(frozen=True, eq=False, repr=False)
class GeneralisationResult(Result):
    """Rows of a leave-one-template-out or drift run (one per writer, group, example)."""

    rows: tuple[dict[str, Any], ...]
    meta: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> Any:
        """Tidy frame of the rows."""
        import pandas as pd

        return pd.DataFrame(list(self.rows))

    def summary(self, split: str = "Holdout") -> Any:
        """Mean F1 of ``split`` by the held-out (or drifted) template and writer."""
        df = self.to_frame()
        df = df[df.split == split]
        if "drift" in df.columns:
            return df.pivot_table(
                index=["template", "drift"], columns=["writer", "when"], values="f1", aggfunc="mean"
            )
        return df.pivot_table(index="template", columns="writer", values="f1", aggfunc="mean")


def _groups_of(template: str, n: int, pages: int, seed: int) -> list[Group]:
    doms = sorted(DOMAINS)
    return [
        make_group(doms[(k + seed) % len(doms)], template, pages, seed=seed * 1009 + k)
        for k in range(n)
    ]


def _check_sizes(templates: Sequence[str], n_groups: int, pages: int) -> None:
    if isinstance(templates, str) or not templates:
        raise ValueError(f"templates must be a non-empty list of template names, got {templates!r}")
    bad = [t for t in templates if t not in ALL_TEMPLATES]
    if bad:
        raise ValueError(f"templates must be among {ALL_TEMPLATES}, got {bad}")
    for name, v in (("groups", n_groups), ("pages", pages)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if pages < 3:
        raise ValueError(
            f"pages must be at least 3 (an example, a context page and a holdout page), got {pages}"
        )
    if len(templates) * n_groups > MAX_GROUPS:
        raise ValueError(
            f"{len(templates)} templates x {n_groups} groups exceeds the limit of {MAX_GROUPS:,} "
            "groups (checked before generating)"
        )


def _tie_seed(seed: int, group: Group, i: int) -> int:
    """The seed of a search's tie-break for one (group, example): differs between groups."""
    import zlib

    return zlib.crc32(f"{seed}/{group.name}/{i}".encode())


def _composed_writer(pol: WriterPolicy, cache: dict[tuple[str, int], Prepared]) -> Writer:
    def w(g: Group, i: int, ctx: Sequence[int]) -> dict[str, Any] | None:
        key = (g.name, i)
        if key not in cache:
            cache[key] = prepare(g, i, n_context=len(ctx))
        prep = cache[key]
        return prep.candidates[pol.choose(prep.X)].program if prep.candidates else None

    return w


def _slot_writers(
    train: Sequence[Group], steps: int, seed: int, progress: bool | None
) -> dict[str, Writer]:
    from .scribes import page_features, resolve, search_program, train_policy

    out: dict[str, Writer] = {}
    if steps > 0:
        pol, _ = train_policy(train, reward="group", steps=steps, seed=seed, progress=progress)
        out["slot policy (540 programs, GRPO)"] = lambda g, i, c: resolve(
            pol.greedy(page_features(g.pages[i].html)), g.pages[i].html
        )
    out["slot search (540 programs, example gold)"] = lambda g, i, c: resolve(
        search_program(g.pages[i].html, g.pages[i].gold(), seed=_tie_seed(seed, g, i)),
        g.pages[i].html,
    )
    return out


def leave_one_template_out(
    templates: Sequence[str] = ALL_TEMPLATES,
    *,
    train_groups: int = 2,
    test_groups: int = 2,
    pages: int = 4,
    steps: int = 400,
    slot_steps: int = 300,
    n_context: int = 1,
    ablations: bool = True,
    seed: Seed = 0,
    sandbox: Any = None,
    progress: bool | None = None,
) -> GeneralisationResult:
    """Hold each template out in turn: train on the others, write scripts for the held-out one.

    For every held-out template T: the composed writer's policy is trained (``steps`` GRPO
    steps, group reward) on ``train_groups`` groups of every other template, and scores
    ``test_groups`` fresh groups of T (each page once the example, one context page, the
    rest holdout).  Compared on the same split: the slot policy of :mod:`.scribes`
    trained on the same groups (``slot_steps``; 0 leaves it out), plain search over the
    540 slot programs and over the composed programs (both with the example page's gold,
    no training), the per-page extractor (the composed policy writing for every page
    alone; its F1 is per page, reported on the holdout pages) and, with ``ablations``,
    the composed policy trained on the self-score and one without a context page.  With
    ``sandbox`` (a :class:`~.sandbox.Sandbox`) every written script is scored by running
    it there (training and the searches run the programs in-process).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> r = leave_one_template_out(["infobox", "div_grid", "kv_table"], train_groups=1,
    ...     test_groups=1, pages=3, steps=20, slot_steps=0, ablations=False, progress=False)
    >>> sorted(r.summary().index)
    ['div_grid', 'infobox', 'kv_table']
    """
    _check_sizes(templates, max(train_groups, test_groups), pages)
    seed = resolve_seed(seed)
    train = {t: _groups_of(t, train_groups, pages, 2 * seed + 1) for t in templates}
    test = {t: _groups_of(t, test_groups, pages, 2 * seed + 2) for t in templates}
    cache: dict[tuple[str, int], Prepared] = {}
    cache0: dict[tuple[str, int], Prepared] = {}
    rows: list[dict[str, Any]] = []
    weights = {}
    for t in templates:
        tr = [g for u in templates if u != t for g in train[u]]
        pol, _ = train_writer(
            tr, steps=steps, n_context=n_context, seed=seed, prepared=cache, progress=progress
        )
        weights[t] = pol.weights()
        writers: dict[str, Writer] = {
            "composed policy (GRPO, group reward)": _composed_writer(pol, cache),
            "composed search (example gold)": lambda g, i, c: (
                lambda cand: cand.program if cand else None
            )(search_composed(g.pages[i].html, g.pages[i].gold(), seed=_tie_seed(seed, g, i))),
        }
        if ablations:
            ps, _ = train_writer(
                tr,
                reward="self",
                steps=steps,
                n_context=n_context,
                seed=seed,
                prepared=cache,
                progress=progress,
            )
            writers["composed policy (GRPO, self-score)"] = _composed_writer(ps, cache)
            for rw, label in (("group", ""), ("self", ", self-score")):
                p0, _ = train_writer(
                    tr,
                    reward=rw,
                    steps=steps,
                    n_context=0,
                    seed=seed,
                    prepared=cache0,
                    progress=progress,
                )
                w0 = _composed_writer(p0, cache0)
                writers[f"composed policy{label}, no context page"] = lambda g, i, c, w0=w0: w0(
                    g, i, []
                )
        writers.update(_slot_writers(tr, slot_steps, seed, progress))
        for r in evaluate_writers(
            writers, test[t], n_context=n_context, sandbox=sandbox, progress=progress
        ):
            rows.append({**r, "held_out": t})
        for g in test[t]:
            f = per_page_f1(pol, g, n_context=n_context, sandbox=sandbox)
            for i in range(len(g)):
                ctx = context_of(len(g), i, n_context)
                hold = [f[q] for q in range(len(g)) if q != i and q not in ctx]
                base = {
                    "writer": "per-page extractor (composed policy)",
                    "group": g.name,
                    "template": t,
                    "example": i,
                    "program": "",
                    "held_out": t,
                }
                rows.append({**base, "split": "All", "f1": float(np.mean(f))})
                rows.append({**base, "split": "Example", "f1": f[i]})
                rows.append({**base, "split": "Holdout", "f1": float(np.mean(hold))})
    meta = {
        "templates": list(templates),
        "train_groups": train_groups,
        "test_groups": test_groups,
        "pages": pages,
        "steps": steps,
        "slot_steps": slot_steps,
        "n_context": n_context,
        "seed": seed,
        "weights": weights,
    }
    return GeneralisationResult(tuple(rows), meta)


def drift_recovery(
    templates: Sequence[str] = ALL_TEMPLATES,
    drifts: Sequence[str] = SCRIPT_DRIFTS,
    *,
    train_groups: int = 2,
    test_groups: int = 1,
    pages: int = 4,
    steps: int = 400,
    slot_steps: int = 300,
    n_context: int = 1,
    seed: Seed = 0,
    sandbox: Any = None,
    progress: bool | None = None,
) -> GeneralisationResult:
    """Scripts written before a drift (stale) and re-written after it, on the drifted pages.

    The writers (the composed policy and the slot policy, both trained on every template
    at ``v0``; the two searches with the example page's gold) write at ``v0`` and again on
    the drifted site; both scripts are scored on the drifted pages (holdout split).
    ``pagination`` is left out: a script reads the page it is given, it follows no link.
    With ``sandbox`` every script is scored by running it there.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> r = drift_recovery(["kv_table"], ["grid"], train_groups=1, pages=3, steps=20,
    ...     slot_steps=0, progress=False)
    >>> sorted(set(r.to_frame().when))
    ['re-written', 'stale']
    """
    from .sites import drift

    _check_sizes(templates, max(train_groups, test_groups), pages)
    bad = [d for d in drifts if d not in SCRIPT_DRIFTS]
    if isinstance(drifts, str) or bad:
        raise ValueError(f"drifts must be among {SCRIPT_DRIFTS}, got {drifts!r}")
    seed = resolve_seed(seed)
    train = [g for t in templates for g in _groups_of(t, train_groups, pages, 2 * seed + 1)]
    cache: dict[tuple[str, int], Prepared] = {}
    pol, _ = train_writer(
        train, steps=steps, n_context=n_context, seed=seed, prepared=cache, progress=progress
    )
    writers: dict[str, Writer] = {
        "composed policy (GRPO, group reward)": lambda g, i, c: (
            lambda cand: cand.program if cand else None
        )(write(pol, g.pages[i].html, context=[g.pages[j].html for j in c])),
        "composed search (example gold)": lambda g, i, c: (
            lambda cand: cand.program if cand else None
        )(search_composed(g.pages[i].html, g.pages[i].gold(), seed=_tie_seed(seed, g, i))),
    }
    writers.update(_slot_writers(train, slot_steps, seed, progress))
    rows: list[dict[str, Any]] = []
    for t in templates:
        for g in _groups_of(t, test_groups, pages, 2 * seed + 2):
            before = {  # the scripts written at v0, once for every drift
                (name, i): w(g, i, context_of(len(g), i, n_context))
                for name, w in writers.items()
                for i in range(len(g))
            }
            for d in drifts:
                lay = drift(g.layout, d, seed=seed)
                new = Group(f"{g.name}@{d}", lay, tuple(rerender(p, lay)[0] for p in g.pages))
                roots = [parse(p.html) for p in new.pages]
                for name, w in writers.items():
                    for i in range(len(g)):
                        ctx = context_of(len(g), i, n_context)
                        for when in ("stale", "re-written"):
                            prog = before[(name, i)] if when == "stale" else w(new, i, ctx)
                            f = _scores(prog, new, roots, sandbox)
                            hold = [f[q] for q in range(len(g)) if q != i and q not in ctx]
                            rows.append(
                                {
                                    "writer": name,
                                    "template": t,
                                    "drift": d,
                                    "when": when,
                                    "group": g.name,
                                    "example": i,
                                    "split": "Holdout",
                                    "f1": float(np.mean(hold)),
                                }
                            )
    meta = {
        "templates": list(templates),
        "drifts": list(drifts),
        "train_groups": train_groups,
        "test_groups": test_groups,
        "pages": pages,
        "steps": steps,
        "slot_steps": slot_steps,
        "seed": seed,
    }
    return GeneralisationResult(tuple(rows), meta)
