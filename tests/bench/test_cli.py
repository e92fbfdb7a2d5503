import typer
from typer.testing import CliRunner

from infometer.cli import bench as bench_cli
from infometer.workflows.bench import Store


def _app():
    app = typer.Typer()
    bench_cli.register(app)
    return app


runner = CliRunner()


def test_bench_then_report(tmp_path):
    out = tmp_path / "b"
    args = [
        "bench",
        "--suite",
        "discrete",
        "--tasks",
        "zipf-100,table-4x5-dirichlet",
        "-e",
        "plugin,miller_madow",
        "--n",
        "200,400",
        "--seeds",
        "2",
        "--out",
        str(out),
        "--jobs",
        "1",
        "-q",
    ]
    r = runner.invoke(_app(), args)
    assert r.exit_code == 0, r.output
    assert "16 run(s) done now" in r.output and "median |err|" in r.output
    with Store(out) as st:
        assert st.count() == 16
        assert st.meta()["suite"] == "discrete"
    r = runner.invoke(_app(), args)  # resumes: nothing to do
    assert r.exit_code == 0 and "0 run(s) done now, 16 already stored" in r.output
    r = runner.invoke(_app(), ["report", str(out), "-o", str(tmp_path / "r.html")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


def test_bench_list_and_bad_input(tmp_path):
    r = runner.invoke(_app(), ["bench", "--suite", "beyond-normal", "--list"])
    assert r.exit_code == 0 and "multinormal-sparse-25-25-2-2.0" in r.output
    for args, msg in [
        (["bench", "--suite", "nope"], "--suite"),
        (["bench", "--n", "10,x"], "--n"),
        (["bench", "--seeds", "0"], "--seeds"),
        (["bench", "--tasks", "no-such-task"], "unknown task"),
        (["bench", "--tasks", "1v1-normal-0.75", "-e", "plugin"], "no (task, estimator)"),
        (["report", str(tmp_path / "missing")], "results.sqlite"),
    ]:
        r = runner.invoke(
            _app(), args + ["--out", str(tmp_path / "o")] if args[0] == "bench" else args
        )
        assert r.exit_code == 2, (args, r.output)
        assert msg in r.output, (args, r.output)


def test_bench_out_must_be_a_directory_and_retries_nonnegative(tmp_path):
    f = tmp_path / "a-file"
    f.write_text("x")
    base = ["bench", "--tasks", "zipf-100", "-e", "plugin", "--n", "100", "--seeds", "1"]
    for extra, msg in [
        (["--out", str(f)], "is a file"),
        (["--out", str(tmp_path / "o"), "--retries", "-1"], "--retries"),
        (["--out", str(tmp_path / "o"), "--scheduler", "tcp://:x"], "is not an address"),
    ]:
        r = runner.invoke(_app(), base + extra + ["-q"])
        assert r.exit_code == 2, (extra, r.output)
        assert msg in r.output and "Traceback" not in r.output, (extra, r.output)
