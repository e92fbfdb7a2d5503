"""Run one peer library on one task's data, in the peer's own interpreter.

This file is executed as a script by the peer's Python (``python _peer_driver.py
REQUEST.json RESPONSE.json``), so it imports only the standard library, numpy and the
peer: never infometer, whose pins may not hold in the peer's environment.

REQUEST: ``{"peer", "quantity", "discrete", "params", "seed", "data": {role: file.npy}}``
(``params`` also carries ``measure``/``atom`` for a PID, ``max_lag`` for a network and
``method`` for a complexity measure).  RESPONSE: ``{"value": nats}`` or ``{"edges":
[[source, target, lag], ...]}``, with ``cpu_s`` / ``wall_s`` of the call alone (the
interpreter's start, the imports and one untimed warm-up call on the first 200 rows,
which starts a JVM or compiles a JIT as infometer's own warm-up does, are ``startup_s``),
the peer's ``version``, or
``{"error": ..., "kind": "missing" | "error"}``.
"""

from __future__ import annotations

import json
import math
import sys
import time
import warnings

LN2 = math.log(2.0)
ADAPTERS: dict = {}
MODULES = {
    "sklearn": "sklearn",
    "npeet": "npeet_plus",
    "ennemi": "ennemi",
    "infomeasure": "infomeasure",
    "jidt": "idtxl",
    "jidt_gaussian": "idtxl",
    "idtxl": "idtxl",
    "hoi": "hoi",
    "dit": "dit",
    "frites": "frites",
    "tigramite": "tigramite",
    "antropy": "antropy",
    "entropyhub": "EntropyHub",
    "ordpy": "ordpy",
}


def adapter(peer, *quantities):
    def deco(fn):
        for q in quantities:
            ADAPTERS[(peer, q)] = fn
        return fn

    return deco


def _np():
    import numpy as np

    return np


def _cols(a):
    return a.reshape(len(a), -1)


def _symbols(a):
    """Rows of a symbol array as one integer code each (0..K-1)."""
    np = _np()
    a = _cols(a)
    _, inv = np.unique(a, axis=0, return_inverse=True)
    return inv.ravel().astype(np.int64)


def _vec(a):
    return _cols(a)[:, 0].astype(float)


# ------------------------------------------------------------------ kNN / plug-in MI
@adapter("sklearn", "mutual_info")
def _sklearn(q, d, p, disc, seed):
    if disc:
        from sklearn.metrics import mutual_info_score

        return mutual_info_score(_symbols(d["x"]), _symbols(d["y"]))
    from sklearn.feature_selection import mutual_info_regression

    return mutual_info_regression(_cols(d["x"]), _vec(d["y"]), n_neighbors=3, random_state=seed)[0]


@adapter("npeet", "mutual_info", "cond_mutual_info", "entropy")
def _npeet(q, d, p, disc, seed):
    import npeet_plus as npeet

    _np().random.seed(seed)  # npeet adds noise from numpy's global generator
    e = math.e
    if disc:
        s = {k: _symbols(v).tolist() for k, v in d.items()}
        if q == "entropy":
            return npeet.entropyd(s["x"], base=e)
        if q == "mutual_info":
            return npeet.midd(s["x"], s["y"], base=e)
        return npeet.cmidd(s["x"], s["y"], s["z"], base=e)
    if q == "entropy":
        return npeet.entropy(_cols(d["x"]), k=3, base=e)
    if q == "mutual_info":
        return npeet.mi(_cols(d["x"]), _cols(d["y"]), k=3, base=e)
    return npeet.cmi(_cols(d["x"]), _cols(d["y"]), _cols(d["z"]), k=3, base=e)


@adapter("ennemi", "mutual_info", "cond_mutual_info", "entropy")
def _ennemi(q, d, p, disc, seed):
    import ennemi

    np = _np()
    if q == "entropy":
        x = _cols(d["x"])
        return float(np.ravel(ennemi.estimate_entropy(x, k=3, multidim=x.shape[1] > 1))[0])
    cond = _cols(d["z"]) if q == "cond_mutual_info" else None
    out = ennemi.estimate_mi(_vec(d["y"]), _vec(d["x"]), k=3, cond=cond, max_threads=1)
    return float(np.ravel(out)[0])


@adapter("infomeasure", "mutual_info", "cond_mutual_info", "entropy", "transfer_entropy")
def _infomeasure(q, d, p, disc, seed):
    import infomeasure as im

    _np().random.seed(seed)
    if disc:
        d = {k: _symbols(v) for k, v in d.items()}
        kw = {"approach": "discrete"}
    else:
        d = {k: (_vec(v) if _cols(v).shape[1] == 1 else _cols(v)) for k, v in d.items()}
        kw = {"approach": "kl" if q == "entropy" else "ksg", "k": 3}
    if q == "entropy":
        return im.entropy(d["x"], **kw)
    if q == "mutual_info":
        return im.mutual_information(d["x"], d["y"], **kw)
    if q == "cond_mutual_info":
        return im.conditional_mutual_information(d["x"], d["y"], cond=d["z"], **kw)
    hist = {"src_hist_len": p.get("l", 1), "dest_hist_len": p.get("k", 1)}
    if "cond" in d:
        return im.conditional_transfer_entropy(
            d["source"], d["target"], cond=d["cond"], cond_hist_len=p.get("m", 1), **hist, **kw
        )
    return im.transfer_entropy(d["source"], d["target"], **hist, **kw)


# ------------------------------------------------------------------ JIDT through IDTxl
def _alph(*arrays):
    return [int(max(2, int(a.max()) + 1)) for a in arrays]


@adapter("jidt", "mutual_info", "cond_mutual_info", "transfer_entropy", "active_info_storage")
def _jidt(q, d, p, disc, seed, peer="jidt"):
    import idtxl.estimators_jidt as J

    kind = "Discrete" if disc else ("Gaussian" if peer == "jidt_gaussian" else "Kraskov")
    settings = {"num_threads": 1} if kind == "Kraskov" else {}
    if disc:
        d = {k: _symbols(v) for k, v in d.items()}
        settings["discretise_method"] = "none"
    else:
        d = {k: (_vec(v) if _cols(v).shape[1] == 1 else _cols(v)) for k, v in d.items()}
    if q == "mutual_info":
        if disc:
            settings["alph1"], settings["alph2"] = _alph(d["x"], d["y"])
        value = getattr(J, f"Jidt{kind}MI")(settings).estimate(d["x"], d["y"])
    elif q == "cond_mutual_info":
        if disc:
            settings["alph1"], settings["alph2"], settings["alphc"] = _alph(d["x"], d["y"], d["z"])
        value = getattr(J, f"Jidt{kind}CMI")(settings).estimate(d["x"], d["y"], d["z"])
    elif q == "transfer_entropy":
        settings.update(history_target=p.get("k", 1), history_source=p.get("l", 1))
        if disc:
            settings["alph1"], settings["alph2"] = _alph(d["source"], d["target"])
        value = getattr(J, f"Jidt{kind}TE")(settings).estimate(d["source"], d["target"])
    else:
        settings["history"] = p.get("k", 1)
        if disc:
            settings["alph"] = _alph(d["x"])[0]
        value = getattr(J, f"Jidt{kind}AIS")(settings).estimate(d["x"])
    value = float(_np().ravel(value)[0])
    return value * LN2 if disc else value  # IDTxl's discrete estimators return bits


@adapter("jidt_gaussian", "mutual_info", "cond_mutual_info", "transfer_entropy")
@adapter("jidt_gaussian", "active_info_storage")
def _jidt_gaussian(q, d, p, disc, seed):
    return _jidt(q, d, p, disc, seed, peer="jidt_gaussian")


@adapter("idtxl", "network")
def _idtxl_network(q, d, p, disc, seed):
    import contextlib
    import io

    from idtxl.data import Data
    from idtxl.multivariate_te import MultivariateTE

    np = _np()
    np.random.seed(seed)
    x = _cols(d["x"])
    lag = int(p["max_lag"])
    settings = {
        "cmi_estimator": "JidtGaussianCMI",
        "max_lag_sources": lag,
        "min_lag_sources": 1,
        "max_lag_target": lag,
        "verbose": False,
    }
    with contextlib.redirect_stdout(io.StringIO()):
        res = MultivariateTE().analyse_network(
            settings=settings, data=Data(x.T, dim_order="ps", normalise=True)
        )
    edges = []
    for t in res.targets_analysed:
        try:
            single = res.get_single_target(t, fdr=True)
        except RuntimeError:  # no FDR result when nothing is significant
            single = res.get_single_target(t, fdr=False)
        for s, lag_ in single.selected_vars_sources or []:
            edges.append([int(s), int(t), int(lag_)])
    return {"edges": edges}


@adapter("idtxl", "pid_atom")
def _idtxl_pid(q, d, p, disc, seed):
    from idtxl.estimators_pid import TartuPID

    s1, s2, t = (_symbols(d[r]) for r in ("s1", "s2", "target"))
    est = TartuPID({"verbose": False, "pid_estimator": "TartuPID", "lags_pid": [0, 0]})
    r = est.estimate(s1, s2, t)
    atom = {
        "{0}{1}": "shd_s1_s2",
        "{0}": "unq_s1",
        "{1}": "unq_s2",
        "{01}": "syn_s1_s2",
    }[p["atom"]]
    return float(r[atom]) * LN2  # bits


# ------------------------------------------------------------------ multivariate
@adapter("dit", "entropy", "mutual_info", "cond_mutual_info")
@adapter("dit", "total_correlation", "dual_total_correlation", "o_information")
@adapter("dit", "s_information", "pid_atom")
def _dit(q, d, p, disc, seed):
    import dit

    np = _np()
    roles = list(d)
    codes = [_symbols(d[r]) for r in roles]
    shape = tuple(int(c.max()) + 1 for c in codes)
    counts = np.zeros(shape)
    np.add.at(counts, tuple(codes), 1.0)
    dist = dit.Distribution.from_ndarray(counts / counts.sum())
    idx = [[i] for i in range(len(roles))]
    if q == "entropy":
        bits = dit.shannon.entropy(dist)
    elif q == "mutual_info":
        bits = dit.shannon.mutual_information(dist, [0], [1])
    elif q == "cond_mutual_info":
        bits = dit.multivariate.coinformation(dist, [[0], [1]], [2])
    elif q == "total_correlation":
        bits = dit.multivariate.total_correlation(dist, idx)
    elif q == "dual_total_correlation":
        bits = dit.multivariate.dual_total_correlation(dist, idx)
    elif q == "o_information":
        bits = dit.multivariate.o_information(dist, idx)
    elif q == "s_information":
        bits = dit.multivariate.total_correlation(
            dist, idx
        ) + dit.multivariate.dual_total_correlation(dist, idx)
    else:
        import dit.pid

        cls = {"mmi": "PID_MMI", "broja": "PID_BROJA", "imin": "PID_WB", "ccs": "PID_CCS"}
        pid = getattr(dit.pid, cls[p["measure"]])(dist, [[0], [1]], [2])
        node = {"{0}{1}": ((0,), (1,)), "{0}": ((0,),), "{1}": ((1,),), "{01}": ((0, 1),)}
        bits = pid.get_pi(node[p["atom"]])
    return float(bits) * LN2


@adapter("hoi", "total_correlation", "dual_total_correlation", "o_information")
@adapter("hoi", "s_information", "pid_atom")
def _hoi(q, d, p, disc, seed):
    import hoi.metrics as H

    np = _np()
    method = "binning" if disc else "gc"
    kind = int if disc else float
    if q == "pid_atom":
        x = np.hstack([_cols(d["s1"]), _cols(d["s2"])]).astype(kind)
        y = _cols(d["target"])[:, 0].astype(kind)
        cls = {"{0}{1}": H.RedundancyMMI, "{01}": H.SynergyMMI}[p["atom"]]
        out = cls(x, y=y, verbose=False).fit(minsize=2, maxsize=2, method=method)
    else:
        x = np.hstack([_cols(d[r]) for r in ("x", "y", "z")]).astype(kind)
        cls = {
            "total_correlation": H.TC,
            "dual_total_correlation": H.DTC,
            "o_information": H.Oinfo,
            "s_information": H.Sinfo,
        }[q]
        out = cls(x, verbose=False).fit(minsize=3, maxsize=3, method=method)
    return float(np.ravel(out)[0]) * LN2  # hoi's entropies are in bits


# ------------------------------------------------------------------ Gaussian copula
@adapter("frites", "mutual_info", "cond_mutual_info")
def _frites(q, d, p, disc, seed):
    from frites.core import copnorm_nd, gccmi_nd_ccc, gcmi_nd_cc

    np = _np()
    r = {k: copnorm_nd(_cols(v).T.astype(float), axis=-1) for k, v in d.items()}
    if q == "mutual_info":
        bits = gcmi_nd_cc(r["x"], r["y"], mvaxis=0, traxis=-1)
    else:
        bits = gccmi_nd_ccc(r["x"], r["y"], r["z"], mvaxis=0, traxis=-1)
    return float(np.ravel(bits)[0]) * LN2


# ------------------------------------------------------------------ Tigramite
@adapter("tigramite", "cond_mutual_info")
def _tigramite_cmi(q, d, p, disc, seed):
    np = _np()
    if disc:
        from tigramite.independence_tests.cmisymb import CMIsymb as Test

        cols = [_symbols(d[r])[:, None] for r in ("x", "y", "z")]
    else:
        from tigramite.independence_tests.cmiknn import CMIknn as Test

        cols = [_cols(d[r]).astype(float) for r in ("x", "y", "z")]
    arr = np.hstack(cols).T
    xyz = np.concatenate([np.full(c.shape[1], i) for i, c in enumerate(cols)])
    test = Test(seed=seed) if disc else Test(seed=seed, knn=0.1)
    return float(test.get_dependence_measure(arr, xyz))


@adapter("tigramite", "network")
def _tigramite_network(q, d, p, disc, seed):
    from tigramite import data_processing as pp
    from tigramite.independence_tests.parcorr import ParCorr
    from tigramite.pcmci import PCMCI

    np = _np()
    x = _cols(d["x"]).astype(float)
    pc = PCMCI(dataframe=pp.DataFrame(x), cond_ind_test=ParCorr(), verbosity=0)
    out = pc.run_pcmci(tau_min=1, tau_max=int(p["max_lag"]), alpha_level=0.05)
    g = out["graph"]
    edges = [[int(i), int(j), int(k)] for i, j, k in zip(*np.nonzero(g == "-->"), strict=True)]
    return {"edges": edges}


# ------------------------------------------------------------------ complexity
@adapter("antropy", "complexity")
def _antropy(q, d, p, disc, seed):
    import antropy as ant

    x, m = _vec(d["x"]), p["method"]
    if m == "permutation":
        return ant.perm_entropy(x, order=p["order"], delay=p["delay"], normalize=False) * LN2
    if m == "svd":
        return ant.svd_entropy(x, order=p["order"], delay=p["delay"], normalize=False) * LN2
    return ant.sample_entropy(x, order=p["order"])  # r = 0.2 sd, natural log


@adapter("entropyhub", "complexity")
def _entropyhub(q, d, p, disc, seed):
    import EntropyHub as EH

    np = _np()
    x, m = _vec(d["x"]), p["method"]
    kw = {"m": p["order"], "tau": p["delay"], "Logx": np.e}
    if m in ("permutation", "weighted_permutation", "modified_permutation"):
        typex = {"permutation": "none", "weighted_permutation": "weighted"}.get(m, "modified")
        return EH.PermEn(x, Typex=typex, **kw)[0][-1]
    if m == "sample":
        return EH.SampEn(x, r=p["r"] * np.std(x), **kw)[0][-1]
    return EH.DispEn(x, c=p["classes"], Typex="ncdf", **kw)[0]


@adapter("ordpy", "complexity")
def _ordpy(q, d, p, disc, seed):
    import ordpy

    x, m = _vec(d["x"]), p["method"]
    f = ordpy.permutation_entropy if m == "permutation" else ordpy.weighted_permutation_entropy
    return f(x, dx=p["order"], taux=p["delay"], base=2, normalized=False) * LN2


# ------------------------------------------------------------------ main
def _version(peer):
    from importlib import metadata

    dist = {"jidt": "idtxl", "jidt_gaussian": "idtxl", "npeet": "npeet-plus"}.get(peer, peer)
    for name in (dist, MODULES[peer]):
        try:
            return metadata.version(name)
        except Exception:
            continue
    return "unknown"


def main(request_path, response_path):
    t_start = time.perf_counter()
    with open(request_path) as f:
        req = json.load(f)
    peer, q = req["peer"], req["quantity"]

    def reply(obj):
        with open(response_path, "w") as f:  # a reply to the parent, not resumable state
            f.write(json.dumps(obj))

    try:
        np = _np()
        __import__(MODULES[peer])
    except ImportError as exc:
        reply({"error": f"{type(exc).__name__}: {exc}", "kind": "missing"})
        return
    fn = ADAPTERS.get((peer, q))
    if fn is None:
        reply({"error": f"no adapter for {peer} / {q}", "kind": "error"})
        return
    data = {role: np.load(path, allow_pickle=False) for role, path in req["data"].items()}
    params, disc, seed = req.get("params", {}), bool(req.get("discrete")), int(req["seed"])
    warnings.simplefilter("ignore")
    if q != "network":  # one untimed call on a slice: JVM start, JIT compiles (as ours warm up)
        try:
            fn(q, {k: v[:200] for k, v in data.items()}, params, disc, seed)
        except Exception:
            pass  # the timed call reports any failure
    startup = time.perf_counter() - t_start
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        out = fn(q, data, params, disc, seed)
    except Exception as exc:  # the peer's own failure: recorded by the caller
        reply({"error": f"{type(exc).__name__}: {exc}"[:2000], "kind": "error"})
        return
    res = {
        "wall_s": time.perf_counter() - t0,
        "cpu_s": time.process_time() - c0,
        "startup_s": startup,
        "version": _version(peer),
    }
    if isinstance(out, dict):
        res.update(out)
    else:
        res["value"] = float(out)
    reply(res)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
