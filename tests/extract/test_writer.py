"""The composing writer: a perfect program exists among the candidates of every template
family, path generalisation by anti-unification, gold-free features against hand-computed
values, a policy trained without a family writes a working script for it, the compiled
script gives the same triples in the sandbox, drift then re-writing recovers."""

from __future__ import annotations

import numpy as np
import pytest

from infometer.systems.extract._compose import (
    FEATURES,
    Candidate,
    _generalise,
    _steps,
    compose,
    features,
    run_candidate,
)
from infometer.systems.extract._html import parse
from infometer.systems.extract.metrics import fuzzy_f1
from infometer.systems.extract.sandbox import Sandbox
from infometer.systems.extract.scribes import compile_script, group_reward
from infometer.systems.extract.sites import ALL_TEMPLATES, drift, make_group, rerender
from infometer.systems.extract.writer import (
    MAX_GROUPS,
    WriterPolicy,
    context_of,
    drift_recovery,
    evaluate_writers,
    leave_one_template_out,
    prepare,
    search_composed,
    train_writer,
    write,
    write_script,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore:running an untrusted script WITHOUT:infometer.core.data.InfometerWarning"
)


def _reward(prog, group):
    roots = [parse(p.html) for p in group.pages]
    return group_reward([run_candidate(prog, r) for r in roots], [p.gold() for p in group.pages])


@pytest.mark.parametrize("template", ALL_TEMPLATES)
def test_candidates_hold_a_perfect_program_for_every_family(template):
    """The composition space covers each family: some candidate written from page 0 has
    group reward exactly 1 on a fresh group (gold triples of the generator)."""
    for dom, seed in (("film", 3), ("university", 8)):
        g = make_group(dom, template, 3, seed=seed)
        cands = compose(g.pages[0].html, context=[g.pages[1].html])
        assert max(_reward(c.program, g) for c, _ in cands) == 1.0


def test_paths_are_anti_unified_across_instances():
    html = (
        "<html><body><div class='box'>"
        "<div class='row f1'><span class='lab'>A</span><i>1</i></div>"
        "<div class='row f2'><i>x</i><span class='lab'>B</span><i>2</i></div>"
        "</div></body></html>"
    )
    root = parse(html)
    rows = root.xpath("//div[@class and contains(@class,'row')]")
    labs = [r.xpath("./span")[0] for r in rows]
    inst = [_steps(r.getparent(), lab) for r, lab in zip(rows, labs, strict=True)]
    # shared class 'row' kept, the field classes dropped; the span's class kept; positions
    # (div 1 vs 2) differ, so none is kept
    has = "contains(concat(' ', normalize-space(@class), ' '), ' {} ')"
    assert _generalise(inst, "class") == f"./div[{has.format('row')}]/span[{has.format('lab')}]"
    assert _generalise(inst, "tag") == "./div/span[1]"  # span is the 1st span in both
    assert _generalise([[]], "class") == "."


def test_features_against_hand_computed_values():
    page = parse(
        "<html><body><a href='/a'>Dune</a><a href='/b'>Emma</a><p>Dune Author Frank Year 1965"
        " Emma Author Jane</p></body></html>"
    )
    out = [["Dune", "Author", "Frank"], ["Dune", "Year", "1965"], ["Emma", "Author", "Jane"]]
    ctx = [["Ivan", "Author", "Leo"]]
    cand = Candidate({"kind": "compose"}, "class", "sibling", "path")
    f = dict(zip(FEATURES, features(cand, [out, ctx], [page, page]), strict=True))
    # 4 triples over 2 pages; units (page, subject): Dune, Emma, Ivan
    assert f["log_triples"] == pytest.approx(np.log1p(4 / 2) / 4)
    assert f["pages_with_output"] == 1.0
    assert f["label_recurs"] == pytest.approx(3 / 4)  # Author in 3 units, Year in 1
    assert f["value_recurs"] == 0.0
    assert f["labels_once_per_record"] == 1.0
    assert f["labels_shared_across_pages"] == pytest.approx(1 / 2)  # {Author,Year} vs {Author}
    assert f["subject_is_link"] == pytest.approx(3 / 4)  # Dune, Dune, Emma link; Ivan not
    assert f["subject_is_label"] == 0.0 and f["label_has_digit"] == 0.0
    assert f["value_has_digit"] == pytest.approx(1 / 4)
    assert f["anchor_class"] == 1.0 and f["anchor_index"] == 0.0
    # every field given to one subject: the same (subject, label) twice
    bad = [["Dune", "Author", "Frank"], ["Dune", "Author", "Jane"], ["Dune", "Year", "1965"]]
    g = dict(zip(FEATURES, features(cand, [bad], [page]), strict=True))
    assert g["labels_once_per_record"] == pytest.approx(1 / 3)


@pytest.fixture(scope="module")
def trained_without():
    """Policies trained on every family but one (1 group of 3 pages each, 150 steps)."""
    from infometer.systems.extract.writer import _groups_of

    out = {}
    for held in ("transposed_table", "section_list"):
        train = [g for t in ALL_TEMPLATES if t != held for g in _groups_of(t, 1, 3, 1)]
        out[held], _ = train_writer(train, steps=150, seed=0, progress=False)
    return out


@pytest.mark.parametrize("held", ["transposed_table", "section_list"])
def test_policy_writes_a_working_script_for_a_family_it_never_trained_on(trained_without, held):
    """Held out: the only family whose records are table columns (transposed_table) and
    the only one without an element around each record (section_list): no training group
    rewards those primitives.  The slot policy of scribes.py scores 0.000 on a held-out
    family (benchmarks/results/extract.md); a uniform choice among the same candidates
    scores their mean reward.  Threshold: holdout F1 >= 0.9 and above that mean + 0.3 --
    on these generated families the trained writer reaches 1.0 (3 seeds of test groups in
    the benchmark), so 0.9 leaves room for one page in ten to go wrong without letting a
    writer that has not generalised pass."""
    pol = trained_without[held]
    g = make_group("book", held, 4, seed=77)
    uniform = []
    for i in range(len(g)):
        prep = prepare(g, i)
        uniform.append(float(np.mean(prep.rewards([p.gold() for p in g.pages]))))
    rows = evaluate_writers(
        {
            "w": lambda grp, i, ctx: (
                write(pol, grp.pages[i].html, context=[grp.pages[ctx[0]].html]).program
            )
        },
        [g],
        progress=False,
    )
    hold = np.mean([r["f1"] for r in rows if r["split"] == "Holdout"])
    assert hold >= 0.9 and hold >= np.mean(uniform) + 0.3, (hold, np.mean(uniform))


def test_written_script_runs_the_same_in_the_sandbox(unisolated):
    """Every family: the script compiled from the written program returns in the OS
    sandbox exactly what the in-process run returns, page by page."""
    pol = WriterPolicy()
    pol.theta[FEATURES.index("anchor_class")] = 1.0
    with Sandbox(cpu_seconds=2, memory_mb=64, allow_unisolated=unisolated) as sb:
        for t in ALL_TEMPLATES:
            g = make_group("phone", t, 3, seed=4)
            cand = search_composed(g.pages[0].html, g.pages[0].gold(), seed=1)
            res = sb.run(compile_script(cand.program), [p.html for p in g.pages])
            for r, p in zip(res, g.pages, strict=True):
                assert r.ok, r.error
                assert [list(x) for x in r.triples] == run_candidate(cand.program, parse(p.html))
        src = write_script(pol, g.pages[0].html, context=[g.pages[1].html])
        assert sb.run(src, [g.pages[2].html])[0].ok


def test_drift_breaks_the_stale_script_and_rewriting_recovers():
    """kv_table after the table -> grid drift (the slot policy's re-written script scored
    0.00 there): the composed script written before the drift reads no table any more;
    written again from a drifted page it is exact on the drifted group (the best
    class-keyed candidate on the example page's gold, both times)."""
    g = make_group("film", "kv_table", 4, seed=12)
    lay = drift(g.layout, "grid")
    new = [rerender(p, lay)[0] for p in g.pages]

    def best_class_keyed(page):
        cands = [(c, o) for c, o in compose(page.html) if c.anchor == "class"]
        return max(cands, key=lambda co: fuzzy_f1(co[1][0], page.gold()).f1)[0]

    before = best_class_keyed(g.pages[0])
    roots = [parse(p.html) for p in new]
    stale = [
        fuzzy_f1(run_candidate(before.program, r), p.gold()).f1
        for r, p in zip(roots, new, strict=True)
    ]
    after = best_class_keyed(new[0])
    fresh = [
        fuzzy_f1(run_candidate(after.program, r), p.gold()).f1
        for r, p in zip(roots, new, strict=True)
    ]
    assert max(stale) == 0.0 and min(fresh) == 1.0


def test_loto_and_drift_score_the_same_in_the_sandbox(unisolated):
    """With ``sandbox=`` every written script (composed, slot, per-page, stale and
    re-written) is scored by running it in the OS sandbox: the rows equal the in-process
    run's, F1 for F1."""
    kw = {"train_groups": 1, "pages": 3, "steps": 10, "slot_steps": 10, "progress": False}
    with Sandbox(cpu_seconds=2, memory_mb=64, allow_unisolated=unisolated) as sb:
        for run, args in (
            (leave_one_template_out, (["kv_table", "section_list"],)),
            (drift_recovery, (["kv_table"], ["grid", "relabel"])),
        ):
            extra = {"test_groups": 1, "ablations": False} if run is leave_one_template_out else {}
            a = run(*args, **kw, **extra, sandbox=sb).to_frame()
            b = run(*args, **kw, **extra).to_frame()
            assert len(a) == len(b) > 0 and a.drop(columns="f1").equals(b.drop(columns="f1"))
            assert np.abs(a.f1.to_numpy() - b.f1.to_numpy()).max() < 1e-12


def test_loto_and_drift_runs_and_their_bad_input():
    r = leave_one_template_out(
        ["infobox", "colon_lines"],
        train_groups=1,
        test_groups=1,
        pages=3,
        steps=10,
        slot_steps=0,
        ablations=False,
        progress=False,
    )
    df = r.to_frame()
    assert set(df.held_out) == {"infobox", "colon_lines"}
    assert {"composed policy (GRPO, group reward)", "per-page extractor (composed policy)"} <= set(
        df.writer
    )
    # every writer is scored on the same pages: 2 families x 1 group x 3 examples, each
    # with 1 context page and 1 holdout page
    assert (df.groupby(["writer", "split"]).size() == 6).all()
    d = drift_recovery(["infobox"], ["wrapper"], train_groups=1, pages=3, steps=5, slot_steps=0)
    assert set(d.to_frame().when) == {"stale", "re-written"}
    with pytest.raises(ValueError, match="templates must be among"):
        leave_one_template_out(["carousel"])
    with pytest.raises(ValueError, match="pages must be at least 3"):
        leave_one_template_out(["infobox"], pages=2)
    with pytest.raises(ValueError, match=f"limit of {MAX_GROUPS:,} groups"):
        leave_one_template_out(["infobox", "kv_table"], train_groups=MAX_GROUPS)
    with pytest.raises(ValueError, match="drifts must be among"):
        drift_recovery(["infobox"], ["pagination"])
    with pytest.raises(ValueError, match="reward"):
        train_writer([make_group("book", "infobox", 2)], reward="judge")
    with pytest.raises(ValueError, match="rollouts"):
        train_writer([make_group("book", "infobox", 2)], rollouts=1)
    with pytest.raises(ValueError, match="steps"):
        train_writer([make_group("book", "infobox", 2)], steps=-1)
    assert context_of(4, 3, 1) == [0] and context_of(2, 0, 5) == [1]
