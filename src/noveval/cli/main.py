"""``noveval``: the command-line entry point.

Top-level commands: ``run <benchmark>``, ``score <benchmark>``, one group per
benchmark for its extra steps, ``models check``, ``cache stats|clear``, ``demo``,
``eval``, ``leaderboard``, ``export``, ``compare``, ``prices``, ``batch status|cancel``, and (when installed) ``report``,
``novelty``, ``check``. Heavy libraries are
imported inside commands, so ``noveval --help`` stays fast.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Annotated

import typer

from noveval._version import __version__
from noveval.cli.common import cli_errors
from noveval.cli.data import data_app
from noveval.cli.options import DataDirOpt, EmbedderOpt, ModelOpt
from noveval.cli.prompts import prompts_app

app = typer.Typer(
    name="noveval",
    help="Evaluate machine judgments of scientific novelty and of peer-review critique.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
run_app = typer.Typer(help="Run a benchmark's task with a model (resumable).", no_args_is_help=True)
score_app = typer.Typer(help="Score saved predictions of a benchmark (made anywhere).", no_args_is_help=True)
models_app = typer.Typer(help="Inspect and check model backends.", no_args_is_help=True)
cache_app = typer.Typer(help="Inspect or clear the response and vector caches.", no_args_is_help=True)
app.add_typer(run_app, name="run")
app.add_typer(score_app, name="score")
app.add_typer(models_app, name="models")
app.add_typer(cache_app, name="cache")
app.add_typer(prompts_app, name="prompts")
app.add_typer(data_app, name="data")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"noveval {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")] = False,
    log_file: Annotated[Path | None, typer.Option("--log-file", help="Also write logs to this file.")] = None,
) -> None:
    """Evaluate machine judgments of scientific novelty and of peer-review critique."""
    from noveval.progress import set_quiet

    set_quiet(quiet)
    level = logging.DEBUG if verbose else logging.INFO
    console = logging.StreamHandler()
    console.setLevel(logging.WARNING if quiet and not verbose else level)  # --log-file still gets INFO
    handlers: list[logging.Handler] = [console]
    if log_file is not None:
        from noveval.cli.common import fail
        from noveval.errors import InputError
        from noveval.io import make_dir

        try:
            make_dir(log_file.parent, "--log-file")
            handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
        except InputError as e:
            fail(str(e))
        except OSError as e:
            fail(f"{log_file}: --log-file: cannot write: {(e.strerror or str(e)).lower()}")
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(message)s", datefmt="%H:%M:%S", handlers=handlers, force=True)
    if verbose:
        for noisy in ("httpx", "httpx2", "openai", "urllib3", "matplotlib", "PIL"):
            logging.getLogger(noisy).setLevel(logging.WARNING)  # -v: library warnings and bars, not HTTP debug lines
    else:
        from noveval.quiet import quiet_third_party

        quiet_third_party()


@models_app.command("check")
@cli_errors
def models_check(
    model: ModelOpt = "local",
    embedder: EmbedderOpt = "local",
    no_cache: Annotated[bool, typer.Option("--no-cache/--cache", help="Bypass the cache (default) to time real calls.")] = True,
) -> None:
    """Load the chat model and the embedder, run one generation and one embedding, time them."""
    from noveval.cli.common import make_client

    t0 = time.perf_counter()
    client = make_client(model, no_cache=no_cache)
    resp = client.complete("In one sentence, what makes a research idea novel?", max_tokens=48)
    t_chat = time.perf_counter() - t0
    if not resp.ok:
        typer.echo(f"chat   {client.model_id}: FAILED: {resp.error}", err=True)
        raise typer.Exit(1)
    tps = resp.completion_tokens / resp.latency_s if resp.latency_s else float("nan")
    typer.echo(f"chat   {client.model_id}: {t_chat:.2f}s incl. load, {resp.completion_tokens} tokens at {tps:.0f} tok/s")
    typer.echo(f"       reply: {resp.text.strip()[:160]!r}")
    from noveval.models.embed import get_embedder

    t0 = time.perf_counter()
    emb = get_embedder(embedder, cache=not no_cache)
    vec = emb.encode(["Novelty is the degree to which a contribution differs from prior work."])
    t_emb = time.perf_counter() - t0
    typer.echo(f"embed  {emb.model_id}: {t_emb:.2f}s incl. load, dim {vec.shape[1]}, norm {float((vec[0] ** 2).sum()) ** 0.5:.3f}")


@cache_app.command("stats")
@cli_errors
def cache_stats() -> None:
    """Show where the caches are, how many entries and how large."""
    from noveval.models.cache import ResponseCache, default_cache_path
    from noveval.models.embed import VectorCache, default_vector_cache_path

    s = ResponseCache(default_cache_path()).stats()
    typer.echo(f"responses: {s['path']}  {s['entries']} entries, {s['bytes'] / 1e6:.1f} MB")
    for m, n in sorted(s["by_model"].items()):
        typer.echo(f"  {m}: {n}")
    vc = VectorCache(default_vector_cache_path())
    counts = vc.count()
    typer.echo(f"vectors:   {vc.path}  {sum(counts.values())} vectors")
    for m, n in sorted(counts.items()):
        typer.echo(f"  {m}: {n}")


@cache_app.command("clear")
@cli_errors
def cache_clear(
    model: Annotated[str | None, typer.Option("--model", "-m", help="Only this model id's responses.")] = None,
    vectors: Annotated[bool, typer.Option("--vectors", help="Also clear the vector cache.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete cached responses (and optionally vectors)."""
    from noveval.models.cache import ResponseCache, default_cache_path
    from noveval.models.embed import VectorCache, default_vector_cache_path

    if not yes:
        typer.confirm("Delete cached model responses?", abort=True)
    n = ResponseCache(default_cache_path()).clear(model)
    typer.echo(f"removed {n} cached responses")
    if vectors:
        typer.echo(f"removed {VectorCache(default_vector_cache_path()).clear()} cached vectors")


@app.command("demo")
@cli_errors
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the demo runs and report.")] = Path("noveval-demo"),
    model: ModelOpt = "local",
    embedder: EmbedderOpt = "local",
    real: Annotated[bool, typer.Option("--real", help="Use the real datasets (../shared/data or --data-dir) instead of the shipped samples.")] = False,
    data_dir: DataDirOpt = None,
    only: Annotated[list[str] | None, typer.Option("--only", help="Run only these benchmarks (repeatable).")] = None,
    allow_failures: Annotated[bool, typer.Option("--allow-failures", help="Exit 0 even when model calls failed (those runs are still marked incomplete).")] = False,
) -> None:
    """Run every benchmark on small shipped samples with the embedded models, then write the report."""
    from noveval.cli.demo import run_demo

    run_demo(out, model=model, embedder=embedder, real=real, data_dir=data_dir, only=only, allow_failures=allow_failures)


def _mount_listing() -> None:
    from noveval.cli.listing import benchmarks

    app.command("benchmarks")(benchmarks)


def _first_line(fn: object) -> str | None:
    return (getattr(fn, "__doc__", None) or "").strip().split("\n")[0] or None


def _mount_benchmarks() -> None:
    """``run <name>``, ``score <name>`` and ``<name> ...`` of every registered system, from its declaration."""
    from noveval.benchmarks import BENCHMARKS
    from noveval.cli.generate import make_run_command, make_score_command

    for name, b in BENCHMARKS.items():
        glue = b.presentation("cli")  # the system's own command-line glue (<package>.cli), if any
        run_cmd = make_run_command(b)
        score_cmd = getattr(glue, "score", None) or make_score_command(b)
        run_app.command(name, help=_first_line(run_cmd))(run_cmd)
        score_app.command(name, help=_first_line(score_cmd))(score_cmd)
        if isinstance(commands := getattr(glue, "app", None), typer.Typer):
            app.add_typer(commands, name=name)


def _mount_extras() -> None:
    import importlib
    import importlib.util

    from noveval.cli.novelty import app as novelty_app

    app.add_typer(novelty_app, name="novelty")
    for modname, attr in (("noveval.report.cli", "register"), ("noveval.check.cli", "register"),
                         ("noveval.index.cli", "register")):
        try:
            if importlib.util.find_spec(modname) is None:
                continue
        except ModuleNotFoundError:
            continue
        getattr(importlib.import_module(modname), attr)(app)


def _mount_results() -> None:
    from noveval.cli.batch import app as batch_app
    from noveval.cli.compare import compare
    from noveval.cli.eval import eval_command, leaderboard
    from noveval.cli.export import export
    from noveval.cli.prices import prices

    app.command("export")(export)
    app.command("compare")(compare)
    app.command("eval")(eval_command)
    app.command("leaderboard")(leaderboard)
    app.command("prices")(prices)
    app.add_typer(batch_app, name="batch")


_mount_listing()
_mount_benchmarks()
_mount_extras()
_mount_results()


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
