"""``infometer seq``: entropy, MI, KL and motif scans of discrete sequences by InfoSEDD.

FILE is a FASTA file, a text file with one sequence per line, or a ``.npy`` array of
token ids (rows = sequences).  Models train on CPU by default (``--device cuda``).  With
``--out DIR`` the trained model is saved as ``DIR/model.safetensors`` (``scan`` also writes
``DIR/scan.csv`` and ``DIR/scan.png``).

Every command runs the same steps -- check every option (before the data are read or a
model is trained), read the tokens, train, query -- through :func:`_Run`; the commands
differ only in their query.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from . import _options as opt
from ._console import user_errors

if TYPE_CHECKING:  # numpy is imported where it is used: `infometer --help` stays light
    import numpy as np

__all__ = ["register", "app"]

app = typer.Typer(
    help="Information in discrete sequences by masked discrete diffusion (InfoSEDD).",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_File = Annotated[Path, typer.Argument(help="FASTA / text / .npy token file.")]
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
_Threads = Annotated[int, typer.Option(help="torch intra-op threads (1 is fastest here).")]
_Policy = Annotated[
    str,
    typer.Option(
        help="Characters outside ACGT (or --alphabet): keep (extra symbols), mask (one "
        "unknown symbol N) or drop (remove those sequences)."
    ),
]
_OUT_HELP = "Folder for model.safetensors (the trained model)."


@dataclass(frozen=True)
class _Run:
    """The options every ``seq`` command shares, checked at once, and the steps they take."""

    steps: int
    hidden: int | None
    arch: str
    estimator: str
    passes: int
    seed: int
    device: str
    threads: int
    alphabet: str | None
    policy: str
    quiet: bool
    unit: str = "nats"
    out_dir: str | None = None
    ci: float | None = None

    @classmethod
    def of(cls, options: dict[str, Any]) -> _Run:
        """The shared options among a command's arguments (its ``locals()``), checked."""
        run = cls(**{k: options[k] for k in cls.__dataclass_fields__ if k in options})
        run.check()
        return run

    def check(self) -> None:
        """Every option that training would otherwise only trip over at the end; then torch's
        intra-op threads set to ``--threads`` (the default of all cores is slower for these
        small models: 30 steps took 38.5 s with it against 2.7 s with one)."""
        from infometer.core.data import check_choice, check_float, check_int
        from infometer.core.estimate import resolve_unit
        from infometer.estimators.diffusion.tokens import SEQUENCE_POLICIES

        from ._paths import check_out_dir

        check_int(self.steps, "--steps", min_value=1)
        if self.hidden is not None:
            check_int(self.hidden, "--hidden", min_value=1)
        if self.ci is not None:
            check_float(self.ci, "--ci", low=0.0, high=1.0, inclusive=(False, False))
        check_int(self.passes, "--passes", min_value=1)
        check_choice(self.arch, "--arch", ("auto", "mlp", "transformer"))
        check_choice(self.estimator, "--estimator", ("time_free", "time_sampled"))
        check_choice(self.policy, "--policy", SEQUENCE_POLICIES)
        resolve_unit(self.unit)
        check_out_dir(self.out_dir, "--out")
        from infometer.core._extras import require

        require("torch", "infometer seq")
        from infometer.core.training import set_threads
        from infometer.estimators.diffusion.model import check_device

        check_device(self.device, "--device")
        set_threads(check_int(self.threads, "--threads", min_value=1))

    def load(self, path: Path, *, alphabet: str | None = None, report: bool = True) -> Any:
        return _load_rows(path, alphabet or self.alphabet, self.policy, report)

    def model(self, mode: str, data: Any, **kw: Any) -> Any:
        """An InfoSEDD model of ``mode`` trained on ``data``."""
        from infometer.estimators.diffusion.infosedd import InfoSEDD

        mlp = self.arch in ("auto", "mlp") and self.hidden is not None
        arch_kwargs = {"hidden": self.hidden} if mlp else {}  # None: scaled to the rows
        return InfoSEDD(
            mode,
            steps=self.steps,
            arch=self.arch,
            arch_kwargs=arch_kwargs,
            seed=self.seed,
            device=self.device,
            progress=False if self.quiet else None,
            **kw,
        ).fit(data)

    def query(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        """Run a query; its warnings (the bias check's among them) print as warning lines,
        one per cause."""
        import warnings

        from ._console import warn_summary

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = func(*args, **kwargs)
        warn_summary([str(w.message) for w in caught])
        return out

    def save(self, m: Any) -> list[str]:
        """``--out``: the trained model as ``OUT/model.safetensors``."""
        if self.out_dir is None:
            return []
        od = Path(self.out_dir)
        od.mkdir(parents=True, exist_ok=True)
        m.save(str(od / "model.safetensors"))
        return [str(od / "model.safetensors")]

    def emit(self, est: Any, json_out: bool, files: list[str]) -> None:
        from .app import emit

        est = est.to(self.unit) if self.unit != "nats" else est
        emit(est, json_out, {"files": files} if json_out else None)
        if files and not json_out:
            from ._console import say

            say("written: " + ", ".join(files))


def _warn(message: str) -> None:
    from ._console import warn_line

    warn_line(message)


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


@app.command("entropy")
@user_errors
def entropy_cmd(
    file: _File,
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
    unit: str = opt.UNIT,
    ci: _Ci = 0.95,
    json_out: bool = opt.JSON,
    out_dir: str | None = opt.out_dir(None, _OUT_HELP),
    quiet: bool = opt.QUIET,
) -> None:
    """InfoSEDD-H entropy of the sequences (on a held-out 20%)."""
    run = _Run.of(locals())
    tok = run.load(file)[0]
    m = run.model("entropy", tok)
    est = run.query(m.entropy, positions, estimator=estimator, passes=passes, ci=ci)
    run.emit(est, json_out, run.save(m))


@app.command("mi")
@user_errors
def mi_cmd(
    file: _File,
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
    unit: str = opt.UNIT,
    ci: _Ci = 0.95,
    json_out: bool = opt.JSON,
    out_dir: str | None = opt.out_dir(None, _OUT_HELP),
    quiet: bool = opt.QUIET,
) -> None:
    """I(X;Y) between two position sets (InfoSEDD-J or -C, on a held-out 20%)."""
    if variant not in ("j", "c"):
        raise ValueError(f"--variant must be 'j' or 'c', got {variant!r}")
    run = _Run.of(locals())
    tok = run.load(file)[0]
    m = run.model("joint" if variant == "j" else "conditional", tok, x=x, y=y)
    est = run.query(m.mutual_info, estimator=estimator, passes=passes, ci=ci)
    run.emit(est, json_out, run.save(m))


@app.command("scan")
@user_errors
def scan_cmd(
    file: _File,
    labels: Annotated[Path, typer.Option(help="One label per line, one per sequence.")],
    window: Annotated[int, typer.Option(help="Window length.")] = 6,
    starts: Annotated[str | None, typer.Option(help="Window starts to scan, e.g. 140:180.")] = None,
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
    out_dir: str | None = opt.out_dir(None, "Folder for scan.csv, scan.png and model.safetensors."),
    quiet: bool = opt.QUIET,
    json_out: bool = opt.JSON,
) -> None:
    """MI between a label and every window of the sequence, from one joint model."""
    import numpy as np

    from infometer.core.data import check_int
    from infometer.core.io_seq import read_labels
    from infometer.estimators.diffusion.tokens import Tokens, join_tokens, parse_positions

    from ._console import print_json, say

    check_int(window, "--window", min_value=1)
    run = _Run.of(locals())
    lab = read_labels(labels)
    tok, kept, n_read = run.load(file)
    if lab.size != n_read:
        raise ValueError(f"{lab.size} labels for {n_read} sequences")
    lab = lab[kept] if kept is not None else lab  # --policy drop removed some rows
    lt, la = np.unique(lab, return_inverse=True)
    ltok = Tokens(la.reshape(-1, 1).astype(np.int64), np.array([lt.size]), (lt,))
    m = run.model("joint", join_tokens(ltok, tok), x=[0], window=window)
    st = None
    if starts is not None:
        st = parse_positions(starts, tok.data.shape[1] - window + 1, "starts")
    res = run.query(m.scan, window, starts=st, estimator=estimator, passes=passes)
    lines = ["start,mi_nats,stderr"] + [
        f"{s},{v:.6f},{e:.6f}" for s, v, e in zip(res.starts, res.values, res.stderr, strict=True)
    ]
    files = run.save(m)
    if out_dir is not None:
        import matplotlib.pyplot as plt

        od = Path(out_dir)
        (od / "scan.csv").write_text("\n".join(lines) + "\n")
        plt.close(res.plot(ax=None, path=str(od / "scan.png")).figure)
        files = [str(od / "scan.csv"), str(od / "scan.png"), *files]
    if json_out:
        print_json(
            {
                "window": window,
                "unit": "nats",
                "starts": list(res.starts),
                "mi": list(res.values),
                "stderr": list(res.stderr),
                "peak": res.peak,
                "files": files,
            }
        )
        return
    say("\n".join(lines))
    say(f"peak: window starting at {res.peak} (MI {res.values.max():.4f} nats)")
    if files:
        say("written: " + ", ".join(files))


@app.command("kl")
@user_errors
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
    unit: str = opt.UNIT,
    ci: _Ci = 0.95,
    json_out: bool = opt.JSON,
    quiet: bool = opt.QUIET,
) -> None:
    """KL(p || q) between two sets of sequences (two models; held-out samples of p)."""
    import numpy as np

    from infometer.estimators.diffusion.infosedd import kl_divergence
    from infometer.estimators.diffusion.tokens import Tokens

    run = _Run.of(locals())
    tp, tq = run.load(p_file)[0], run.load(q_file)[0]
    ap, aq = tp.alphabets[0], tq.alphabets[0]
    if alphabet is None and ap is not None and aq is not None:
        joint = "".join(sorted(set(ap.tolist()) | set(aq.tolist())))
        tp = run.load(p_file, alphabet=joint, report=False)[0]
        tq = run.load(q_file, alphabet=joint, report=False)[0]
    k = max(tp.vocab_size, tq.vocab_size)
    tp = Tokens(tp.data, np.full(tp.data.shape[1], k))
    tq = Tokens(tq.data, np.full(tq.data.shape[1], k))
    mp = run.model("entropy", tp)
    mq = run.model("entropy", tq, holdout=0.0)
    est = run.query(kl_divergence, mp, mq, estimator=estimator, passes=passes, seed=seed, ci=ci)
    run.emit(est, json_out, [])


def register(root: typer.Typer) -> None:
    """Mount the ``seq`` group on the root app."""
    root.add_typer(app, name="seq")
