"""``infometer seq``: entropy, MI, KL and motif scans of discrete sequences by InfoSEDD.

FILE is a FASTA file, a text file with one sequence per line, or a ``.npy`` array of
token ids (rows = sequences).  Models train on CPU by default (``--device cuda``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:  # numpy is imported where it is used: `infometer --help` stays light
    import numpy as np

__all__ = ["register", "app"]

app = typer.Typer(
    help="Information in discrete sequences by masked discrete diffusion (InfoSEDD).",
    no_args_is_help=True,
)

_Steps = Annotated[int, typer.Option(help="Maximum training steps (early stopping).")]
_Hidden = Annotated[
    int | None,
    typer.Option(help="Width of the MLP denoiser (default: 128 below ~1,000 rows, 256 above)."),
]
_Ci = Annotated[
    float,
    typer.Option(
        help="Level of the printed interval: Monte Carlo error widened by the model's bias "
        "check (the likelihood gap)."
    ),
]
_Arch = Annotated[str, typer.Option(help="auto (MLP if D <= 64), mlp, transformer.")]
_Est = Annotated[str, typer.Option(help="time_free (default) or time_sampled (paper's 1/t form).")]
_Passes = Annotated[int, typer.Option(help="Monte Carlo passes over the held-out rows.")]
_Seed = Annotated[int, typer.Option(help="Seed for split, initialisation and masks.")]
_Device = Annotated[str, typer.Option(help="Torch device: cpu, cuda, cuda:1, ...")]
_Alpha = Annotated[str | None, typer.Option(help="Alphabet in code order, e.g. ACGT.")]
_Unit = Annotated[str, typer.Option(help="nats, bits or hartleys.")]
_Json = Annotated[bool, typer.Option("--json", help="Print the Estimate as JSON.")]
_Save = Annotated[Path | None, typer.Option(help="Save the trained model (safetensors).")]
_Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
_Threads = Annotated[int, typer.Option(help="torch intra-op threads (1 is fastest here).")]
_Policy = Annotated[
    str,
    typer.Option(
        help="Characters outside ACGT (or --alphabet): keep (extra symbols), mask (one "
        "unknown symbol N) or drop (remove those sequences)."
    ),
]


def _warn(message: str) -> None:
    from .app import warn

    warn(message)


def _load_rows(
    path: Path, alphabet: str | None, policy: str = "keep", report: bool = True
) -> tuple[Any, np.ndarray | None, int]:
    """Tokens of FILE, the rows kept (``None``: all) and the number of rows read; findings
    (off-alphabet letters, sparse token ids) are printed as warning lines."""
    import warnings

    from infometer.core.data import InfometerWarning
    from infometer.core.io_seq import read_sequences, read_token_ids
    from infometer.estimators.diffusion.tokens import Tokens, as_tokens, prepare_strings

    kept = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InfometerWarning)
        if path.suffix == ".npy":
            tok = as_tokens(read_token_ids(path), "FILE")
            n_read = tok.data.shape[0]
        else:
            seqs = read_sequences(path)
            n_read = len(seqs)
            seqs, alphabet, rep = prepare_strings(seqs, alphabet, policy, "FILE")
            if rep:
                warnings.warn(rep["message"], InfometerWarning, stacklevel=1)
                kept = rep["kept_rows"]
            tok = as_tokens(seqs, "FILE", alphabet, policy=None)
    if report:
        for w in caught:
            _warn(str(w.message))
    assert isinstance(tok, Tokens)
    return tok, kept, n_read


def _load(path: Path, alphabet: str | None, policy: str = "keep", report: bool = True) -> Any:
    return _load_rows(path, alphabet, policy, report)[0]


def _check_out(path: Path | None, option: str) -> None:
    """An output path must be writable *before* hours of training, not after."""
    import os

    if path is None:
        return
    if path.is_dir():
        raise ValueError(f"{option} {str(path)!r} is a directory; give a file name")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{option} {str(path)!r}: directory {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK):
        raise ValueError(f"{option} {str(path)!r}: directory {str(parent)!r} is not writable")


def _validate(
    *,
    steps: int,
    hidden: int | None,
    arch: str,
    estimator: str,
    passes: int,
    device: str,
    unit: str = "nats",
    policy: str = "keep",
    outputs: dict[str, Path | None] | None = None,
    threads: int | None = None,
    ci: float | None = None,
) -> None:
    """Every option that training would otherwise only trip over at the end; then torch's
    intra-op threads set to ``--threads`` (the default of all cores is slower for these
    small models: 30 steps took 38.5 s with it against 2.7 s with one)."""
    from infometer.core.data import check_choice, check_float, check_int
    from infometer.core.estimate import resolve_unit
    from infometer.estimators.diffusion.tokens import SEQUENCE_POLICIES

    check_int(steps, "--steps", min_value=1)
    if hidden is not None:
        check_int(hidden, "--hidden", min_value=1)
    check_int(passes, "--passes", min_value=1)
    check_choice(arch, "--arch", ("auto", "mlp", "transformer"))
    check_choice(estimator, "--estimator", ("time_free", "time_sampled"))
    check_choice(policy, "--policy", SEQUENCE_POLICIES)
    if ci is not None:
        check_float(ci, "--ci", low=0.0, high=1.0, inclusive=(False, False))
    resolve_unit(unit)
    for option, path in (outputs or {}).items():
        _check_out(path, option)
    try:
        from infometer.estimators.diffusion.model import check_device
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ValueError("infometer seq needs torch: pip install 'infometer[torch]'") from exc
    check_device(device, "--device")
    if threads is not None:
        from infometer.core.training import set_threads

        set_threads(check_int(threads, "--threads", min_value=1))


def _model(
    mode: str,
    steps: int,
    hidden: int | None,
    arch: str,
    seed: int,
    device: str,
    quiet: bool,
    **kw: Any,
) -> Any:
    from infometer.estimators.diffusion.infosedd import InfoSEDD

    arch_kwargs = {"hidden": hidden} if arch in ("auto", "mlp") and hidden is not None else {}
    return InfoSEDD(
        mode,
        steps=steps,
        arch=arch,
        arch_kwargs=arch_kwargs,
        seed=seed,
        device=device,
        progress=False if quiet else None,
        **kw,
    )


def _query(func: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a query; its warnings (the bias check's among them) print as warning lines."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = func(*args, **kwargs)
    for w in caught:
        _warn(str(w.message))
    return out


def _print(est: Any, unit: str, as_json: bool) -> None:
    est = est.to(unit) if unit != "nats" else est
    if as_json:
        typer.echo(json.dumps(est.to_dict(), indent=2, default=str))
    else:
        typer.echo(repr(est))


def _fail(exc: Exception) -> None:
    from .app import fail  # the one place that formats CLI errors

    fail(str(exc))


@app.command("entropy")
def entropy_cmd(
    file: Annotated[Path, typer.Argument(help="FASTA / text / .npy token file.")],
    positions: Annotated[str | None, typer.Option(help="Positions, e.g. 0:10.")] = None,
    alphabet: _Alpha = None,
    policy: _Policy = "keep",
    steps: _Steps = 3000,
    hidden: _Hidden = None,
    arch: _Arch = "auto",
    estimator: _Est = "time_free",
    passes: _Passes = 5,
    seed: _Seed = 0,
    device: _Device = "cpu",
    threads: _Threads = 1,
    unit: _Unit = "nats",
    ci: _Ci = 0.95,
    as_json: _Json = False,
    save: _Save = None,
    quiet: _Quiet = False,
) -> None:
    """InfoSEDD-H entropy of the sequences (on a held-out 20%)."""
    try:
        _validate(
            threads=threads,
            steps=steps,
            hidden=hidden,
            arch=arch,
            estimator=estimator,
            passes=passes,
            device=device,
            unit=unit,
            policy=policy,
            outputs={"--save": save},
            ci=ci,
        )
        tok = _load(file, alphabet, policy)
        m = _model("entropy", steps, hidden, arch, seed, device, quiet).fit(tok)
        est = _query(m.entropy, positions, estimator=estimator, passes=passes, ci=ci)
    except (ValueError, TypeError, OSError) as exc:
        _fail(exc)
    if save is not None:
        m.save(str(save))
    _print(est, unit, as_json)


@app.command("mi")
def mi_cmd(
    file: Annotated[Path, typer.Argument(help="FASTA / text / .npy token file.")],
    x: Annotated[str, typer.Option("--x", help="Positions of X, e.g. 0:10.")],
    y: Annotated[str, typer.Option("--y", help="Positions of Y, e.g. 10:20.")],
    variant: Annotated[str, typer.Option(help="j (joint model) or c (conditional model).")] = "j",
    alphabet: _Alpha = None,
    policy: _Policy = "keep",
    steps: _Steps = 3000,
    hidden: _Hidden = None,
    arch: _Arch = "auto",
    estimator: _Est = "time_free",
    passes: _Passes = 5,
    seed: _Seed = 0,
    device: _Device = "cpu",
    threads: _Threads = 1,
    unit: _Unit = "nats",
    ci: _Ci = 0.95,
    as_json: _Json = False,
    save: _Save = None,
    quiet: _Quiet = False,
) -> None:
    """I(X;Y) between two position sets (InfoSEDD-J or -C, on a held-out 20%)."""
    if variant not in ("j", "c"):
        _fail(ValueError(f"--variant must be 'j' or 'c', got {variant!r}"))
    mode = "joint" if variant == "j" else "conditional"
    try:
        _validate(
            threads=threads,
            steps=steps,
            hidden=hidden,
            arch=arch,
            estimator=estimator,
            passes=passes,
            device=device,
            unit=unit,
            policy=policy,
            outputs={"--save": save},
            ci=ci,
        )
        tok = _load(file, alphabet, policy)
        m = _model(mode, steps, hidden, arch, seed, device, quiet, x=x, y=y).fit(tok)
        est = _query(m.mutual_info, estimator=estimator, passes=passes, ci=ci)
    except (ValueError, TypeError, OSError) as exc:
        _fail(exc)
    if save is not None:
        m.save(str(save))
    _print(est, unit, as_json)


@app.command("scan")
def scan_cmd(
    file: Annotated[Path, typer.Argument(help="FASTA / text / .npy token file.")],
    labels: Annotated[Path, typer.Option(help="One label per line, one per sequence.")],
    window: Annotated[int, typer.Option(help="Window length.")] = 6,
    starts: Annotated[str | None, typer.Option(help="Window starts to scan, e.g. 140:180.")] = None,
    plot: Annotated[Path | None, typer.Option(help="Save a plot of MI along the sequence.")] = None,
    csv: Annotated[Path | None, typer.Option(help="Write start,mi,stderr rows.")] = None,
    alphabet: _Alpha = None,
    policy: _Policy = "keep",
    steps: _Steps = 3000,
    hidden: _Hidden = None,
    arch: _Arch = "auto",
    estimator: _Est = "time_free",
    passes: _Passes = 3,
    seed: _Seed = 0,
    device: _Device = "cpu",
    threads: _Threads = 1,
    save: _Save = None,
    quiet: _Quiet = False,
    as_json: _Json = False,
) -> None:
    """MI between a label and every window of the sequence, from one joint model."""
    from infometer.core.data import check_int
    from infometer.core.io_seq import read_labels
    from infometer.estimators.diffusion.tokens import Tokens, join_tokens, parse_positions

    try:
        check_int(window, "--window", min_value=1)
        _validate(
            threads=threads,
            steps=steps,
            hidden=hidden,
            arch=arch,
            estimator=estimator,
            passes=passes,
            device=device,
            policy=policy,
            outputs={"--save": save, "--plot": plot, "--csv": csv},
        )
        lab = read_labels(labels)
        tok, kept, n_read = _load_rows(file, alphabet, policy)
        if lab.size != n_read:
            raise ValueError(f"{lab.size} labels for {n_read} sequences")
        lab = lab[kept] if kept is not None else lab  # --policy drop removed some rows
        import numpy as np

        lt, la = np.unique(lab, return_inverse=True)
        ltok = Tokens(la.reshape(-1, 1).astype(np.int64), np.array([lt.size]), (lt,))
        full = join_tokens(ltok, tok)
        m = _model("joint", steps, hidden, arch, seed, device, quiet, x=[0], window=window)
        m.fit(full)
        st = None
        if starts is not None:
            st = parse_positions(starts, tok.data.shape[1] - window + 1, "starts")
        res = _query(m.scan, window, starts=st, estimator=estimator, passes=passes)
    except (ValueError, TypeError, OSError) as exc:
        _fail(exc)
    if save is not None:
        m.save(str(save))
    lines = ["start,mi_nats,stderr"] + [
        f"{s},{v:.6f},{e:.6f}" for s, v, e in zip(res.starts, res.values, res.stderr, strict=True)
    ]
    if csv is not None:
        csv.write_text("\n".join(lines) + "\n")
    if plot is not None:
        res.plot(str(plot))
    if as_json:
        from ._console import print_json

        print_json(
            {
                "window": window,
                "unit": "nats",
                "starts": list(res.starts),
                "mi": list(res.values),
                "stderr": list(res.stderr),
                "peak": res.peak,
            }
        )
        return
    typer.echo("\n".join(lines))
    typer.echo(f"peak: window starting at {res.peak} (MI {res.values.max():.4f} nats)")


@app.command("kl")
def kl_cmd(
    p_file: Annotated[Path, typer.Argument(help="Samples of p (FASTA / text / .npy).")],
    q_file: Annotated[Path, typer.Argument(help="Samples of q, same length and alphabet.")],
    alphabet: _Alpha = None,
    policy: _Policy = "keep",
    steps: _Steps = 3000,
    hidden: _Hidden = None,
    arch: _Arch = "auto",
    estimator: _Est = "time_free",
    passes: _Passes = 5,
    seed: _Seed = 0,
    device: _Device = "cpu",
    threads: _Threads = 1,
    unit: _Unit = "nats",
    ci: _Ci = 0.95,
    as_json: _Json = False,
    quiet: _Quiet = False,
) -> None:
    """KL(p || q) between two sets of sequences (two models; held-out samples of p)."""
    from infometer.estimators.diffusion.infosedd import kl_divergence
    from infometer.estimators.diffusion.tokens import Tokens

    try:
        _validate(
            threads=threads,
            steps=steps,
            hidden=hidden,
            arch=arch,
            estimator=estimator,
            passes=passes,
            device=device,
            unit=unit,
            policy=policy,
            ci=ci,
        )
        tp, tq = _load(p_file, alphabet, policy), _load(q_file, alphabet, policy)
        ap, aq = tp.alphabets[0], tq.alphabets[0]
        if alphabet is None and ap is not None and aq is not None:
            joint = "".join(sorted(set(ap.tolist()) | set(aq.tolist())))
            tp, tq = _load(p_file, joint, policy, False), _load(q_file, joint, policy, False)
        import numpy as np

        k = max(tp.vocab_size, tq.vocab_size)
        tp = Tokens(tp.data, np.full(tp.data.shape[1], k))
        tq = Tokens(tq.data, np.full(tq.data.shape[1], k))
        mp = _model("entropy", steps, hidden, arch, seed, device, quiet).fit(tp)
        mq = _model("entropy", steps, hidden, arch, seed, device, quiet, holdout=0.0).fit(tq)
        est = _query(kl_divergence, mp, mq, estimator=estimator, passes=passes, seed=seed, ci=ci)
    except (ValueError, TypeError, OSError) as exc:
        _fail(exc)
    _print(est, unit, as_json)


def register(root: typer.Typer) -> None:
    """Mount the ``seq`` group on the root app."""
    root.add_typer(app, name="seq")
