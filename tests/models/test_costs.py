"""Dollar costs and budgets: the price table, the cost of a run, ``--max-cost``.

Runs go through the CLI in-process against a real HTTP server on 127.0.0.1
(tests/fake_openai.py), whose usage is known: prompt tokens = words of the last user
message, completion tokens = 2. Every expected dollar figure below is worked out by hand
from those counts and the test's price file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fake_openai import FakeOpenAIServer
from noveval.cli.main import app
from noveval.errors import InputError
from noveval.models.costs import (
    Budget,
    BudgetExceeded,
    CostBook,
    Price,
    estimate_prompt_tokens,
    load_prices,
)
from scripted_rinobench import RinoScript

MODEL = "fake-priced"
PROBE_WORDS = 3  # "Reply with OK." (the endpoint check): 3 prompt tokens, 2 completion


def _prices(tmp_path: Path, **entries: dict) -> Path:
    p = tmp_path / "prices.json"
    p.write_text(json.dumps({"source": "test price file", "as_of": "2026-01", "models": entries}))
    return p


def _prompts(tmp_path: Path, n: int) -> Path:
    p = tmp_path / "prompts.jsonl"
    rows = [{"id": f"q{i}", "prompt": f"question {i}", "reference": f"echo: question {i}"} for i in range(n)]
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


def _cost(run: Path) -> dict:
    """The run folder's cost record (calls.json; scores.json carries the same once scored)."""
    return json.loads((run / "calls.json").read_text())["cost"]


def _cli(tmp_path: Path, *args: str, prices: Path | None = None):
    env = {"NOVEVAL_CACHE_DIR": str(tmp_path / "cache")}
    if prices is not None:
        env["NOVEVAL_PRICES"] = str(prices)
    return CliRunner(env=env).invoke(app, ["-q", *args])


def _rows(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []


# -- the price table -------------------------------------------------------------------------


def test_price_of_a_request_by_hand() -> None:
    p = Price(input=2.0, output=8.0, cached_input=0.5, batch_discount=0.5)
    # 600 uncached prompt tokens at $2, 400 cached at $0.5, 200 completion at $8, per 1M
    assert p.cost(1000, 200, 400) == pytest.approx((600 * 2 + 400 * 0.5 + 200 * 8) / 1e6)  # $0.003
    assert p.cost(1000, 200, 400, batch=True) == pytest.approx(0.0015)
    assert p.cost(10, 0, 50) == pytest.approx(10 * 0.5 / 1e6)  # cached tokens never exceed the prompt


def test_lookup_rules_and_the_shipped_table(tmp_path: Path) -> None:
    table = load_prices(_prices(tmp_path, **{"openai-compatible/qwen": {"input": 0.1, "output": 0.2},
                                             "openai/gpt-4o-mini": {"input": 9.0, "output": 9.0}}))
    assert table.lookup("openai-compatible/qwen@http://10.0.0.1:8000/v1").input == 0.1  # any URL
    assert table.lookup("openai/gpt-4o-mini").input == 9.0  # the user's entry wins over the shipped one
    assert table.lookup("openai/o3-2025-04-16") is table.lookup("openai/o3")  # snapshot date dropped
    assert table.lookup("openai/o3").batch_discount == 0.5
    assert table.lookup("local/SmolLM2-135M-Instruct-Q4_1").output == 0.0  # in-process: no API charge
    assert table.lookup("openai-compatible/other@http://x/v1") is None  # unknown: no price, not 0
    assert table.files[0].endswith("(shipped)") and table.files[1].endswith("prices.json")
    shipped = load_prices()
    assert shipped.lookup("openai/gpt-4o").source == "openai.com/api/pricing, standard tier, as of 2025-08"


def test_a_bad_price_file_names_the_field(tmp_path: Path) -> None:
    bad = _prices(tmp_path, **{"openai/x": {"input": "cheap", "output": 1}})
    with pytest.raises(InputError, match=r"models\.openai/x\.input: \"cheap\" is not a price"):
        load_prices(bad)
    r = _cli(tmp_path, "run", "chat", "-i", str(_prompts(tmp_path, 1)), "-o", str(tmp_path / "r"), "-m", "local",
             "--max-cost", "1", prices=bad)
    assert r.exit_code == 2 and "is not a price" in r.stderr and not (tmp_path / "r").exists()


def test_prompt_token_estimate_is_on_the_high_side() -> None:
    msgs = [{"role": "user", "content": "question 0"}]
    assert estimate_prompt_tokens(msgs) == 3 + 4 + 4  # 10 bytes -> 4 tokens, +4 per message, +3
    text = "Novelty is the degree to which a contribution differs from prior work. " * 20
    # real tokenizers of current OpenAI models give ~1 token per 4-5 characters of English
    assert estimate_prompt_tokens([{"role": "user", "content": text}]) >= len(text) / 4


def test_cost_book_merges_and_unknown_stays_unknown() -> None:
    a, b = CostBook(), CostBook()
    a.add("m", Price(1.0, 10.0, 1.0), prompt_tokens=100, completion_tokens=10)
    b.add("m", Price(1.0, 10.0, 1.0), prompt_tokens=50, completion_tokens=0)
    b.add("n", None, prompt_tokens=5, completion_tokens=5)
    total = a.merged(b)
    assert total.models["m"].usd == pytest.approx((150 + 100) / 1e6)
    assert total.usd is None and total.usd_known == pytest.approx(250 / 1e6)
    assert total.to_json()["unpriced"] == ["n"]
    assert CostBook.from_json(total.to_json()).to_json() == total.to_json()


def test_budget_waits_for_in_flight_requests_then_stops_for_good() -> None:
    b = Budget(1.0)
    assert b.admit(0.2, 0.5, "m") is True  # 0.2 spent + 0.5 reserved
    assert b.admit(0.2, 0.4, "m") is False  # 0.2 + 0.5 + 0.4 > 1, but it fits once the 0.5 is booked
    assert b.stopped is None and b.reserved == pytest.approx(0.5)
    b.release(0.5)  # the in-flight request cost 0.1 in fact
    assert b.admit(0.3, 0.4, "m") is True  # 0.3 + 0.4 <= 1
    with pytest.raises(BudgetExceeded, match=r"\$0\.7 spent of \$1\.00; the next request to m could cost up to "
                                             r"\$0\.4, more than the \$0\.3 left"):
        b.admit(0.7, 0.4, "m")  # even with nothing in flight it cannot fit
    with pytest.raises(BudgetExceeded):
        b.admit(0.0, 0.0, "m")  # once stopped, every later request is refused
    with pytest.raises(InputError, match="--max-cost"):
        Budget(-1)


# -- the cost of a run ---------------------------------------------------------------------


def test_a_run_shows_its_cost_and_a_cached_rerun_costs_nothing(tmp_path: Path) -> None:
    prices = _prices(tmp_path, **{f"openai-compatible/{MODEL}": {"input": 1.0, "output": 10.0}})
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/{MODEL}@{server.base_url}"
        args = ["run", "chat", "-i", str(_prompts(tmp_path, 3)), "-o", str(tmp_path / "r"), "-m", spec]
        r = _cli(tmp_path, *args, prices=prices)
        assert r.exit_code == 0, r.output
        # 3 requests of 2 words + the check call of 3 words; 2 completion tokens each
        usd = ((3 * 2 + PROBE_WORDS) * 1.0 + 4 * 2 * 10.0) / 1e6
        cost = _cost(tmp_path / "r")
        assert cost["usd"] == pytest.approx(usd) and cost["this_invocation_usd"] == pytest.approx(usd)
        assert cost["models"][spec]["requests"] == 3 and cost["models"][spec]["prompt_tokens"] == 9
        assert cost["models"][spec]["price"]["source"] == "test price file, as of 2026-01"
        assert "cost: $0.000089 for this run folder: 9 prompt + 8 completion tokens" in r.stdout
        assert "test price file, as of 2026-01" in r.stdout

        again = _cli(tmp_path, *args, prices=prices)
        assert again.exit_code == 0 and server.total == 4  # no new call, not even a check
        cost2 = _cost(tmp_path / "r")
        assert cost2["this_invocation_usd"] == 0 and cost2["usd"] == pytest.approx(usd)  # the folder's total stays
        assert "($0 in this invocation)" in again.stdout

        scored = _cli(tmp_path, "score", "chat", "-i", str(_prompts(tmp_path, 3)), "-r", str(tmp_path / "r"),
                      prices=prices)
        assert scored.exit_code == 0, scored.output
        scores = json.loads((tmp_path / "r" / "scores.json").read_text())
        assert scores["metrics"]["exact_match"]["mean"] == 1.0
        assert scores["cost"]["usd"] == pytest.approx(usd) and scores["cost"]["models"][spec]["requests"] == 3

        rep = _cli(tmp_path, "report", str(tmp_path / "r"), "-o", str(tmp_path / "report.html"))
        assert rep.exit_code == 0, rep.output
        html = (tmp_path / "report.html").read_text()
        assert '<div class="costs"><b>Cost</b>' in html and "$0.000089 for this run folder" in html


def test_a_model_without_a_price_has_an_unknown_cost_never_zero(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/unpriced@{server.base_url}"
        r = _cli(tmp_path, "run", "chat", "-i", str(_prompts(tmp_path, 2)), "-o", str(tmp_path / "r"), "-m", spec)
    assert r.exit_code == 0, r.output
    cost = _cost(tmp_path / "r")
    assert cost["usd"] is None and cost["unpriced"] == [spec] and cost["models"][spec]["usd"] is None
    assert f"cost: unknown: no price for {spec}" in r.stdout and "$0 " not in r.stdout


# -- --max-cost ------------------------------------------------------------------------------


def test_budget_stops_before_it_is_exceeded_and_a_higher_budget_finishes(tmp_path: Path) -> None:
    """Prices $1 in / $10 out per 1M; --max-tokens 10; one request at a time.

    Each request is estimated at (4 + 4 + 3 prompt tokens + 10 max tokens x 10) = $0.000111
    and costs (2 + 2 x 10) = $0.000022; the check call costs (3 + 20) = $0.000023.
    With --max-cost 0.00021: spent before request k (1-based) is 23 + 22 (k - 1) millionths;
    k = 4 is admitted (89 + 111 = 200 <= 210), k = 5 is not (111 + 111 = 222 > 210).
    """
    prices = _prices(tmp_path, **{f"openai-compatible/{MODEL}": {"input": 1.0, "output": 10.0}})
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/{MODEL}@{server.base_url}"
        args = ["run", "chat", "-i", str(_prompts(tmp_path, 6)), "-o", str(tmp_path / "r"), "-m", spec,
                "-c", "1", "--max-tokens", "10"]
        r = _cli(tmp_path, *args, "--max-cost", "0.00021", prices=prices)
        assert r.exit_code == 4, r.output
        assert "--max-cost $0.00021: $0.000111 spent of $0.00021" in r.stderr and "higher --max-cost" in r.stderr
        assert [row["id"] for row in _rows(tmp_path / "r" / "predictions.jsonl")] == ["q0", "q1", "q2", "q3"]
        assert server.total == 5  # the check + 4 requests; the fifth was never sent
        calls = json.loads((tmp_path / "r" / "calls.json").read_text())
        assert calls["cost"]["usd"] == pytest.approx(111e-6) and calls["cost"]["usd"] <= 0.00021
        assert "STOPPED AT THE BUDGET" in r.stdout

        same = _cli(tmp_path, *args, "--max-cost", "0.00021", prices=prices)
        assert same.exit_code == 4 and server.total == 5  # nothing fits: not even a check call is made

        done = _cli(tmp_path, *args, "--max-cost", "1", prices=prices)
        assert done.exit_code == 0, done.output
        assert server.total == 5 + 1 + 2  # a new check + the two requests left; nothing asked twice
        assert all(server.counts[f"question {i}"] == 1 for i in range(6))
        calls = json.loads((tmp_path / "r" / "calls.json").read_text())
        assert calls["last"]["complete"] is True and calls["last"]["stopped"] is None
        assert calls["cost"]["usd"] == pytest.approx((2 * 23 + 6 * 22) / 1e6)  # both invocations
        assert calls["cost"]["max_usd"] == 1.0
    # identical to a run that had no budget
    with FakeOpenAIServer() as server:
        spec2 = f"openai-compatible/{MODEL}@{server.base_url}"
        ref = _cli(tmp_path, "run", "chat", "-i", str(_prompts(tmp_path, 6)), "-o", str(tmp_path / "ref"),
                   "-m", spec2, "--max-tokens", "10", "--no-cache")
        assert ref.exit_code == 0
    assert [x["output"] for x in _rows(tmp_path / "r" / "predictions.jsonl")] == \
        [x["output"] for x in _rows(tmp_path / "ref" / "predictions.jsonl")]


def test_a_budget_is_spent_up_to_the_cap_at_any_concurrency(tmp_path: Path) -> None:
    """Ten affordable requests, eight in flight at once: 8-10 are sent, the budget is never passed.

    Prices $1 in / $10 out per 1M, --max-tokens 4. A request's worst case is (11 prompt tokens
    estimated + 4 x 10) = $0.000051; it really costs (2 + 2 x 10) = $0.000022, the check call
    $0.000023; --max-cost $0.00022 pays for ten of them. Requests wait while the ones in
    flight may leave room; the run stops when spent + $0.000051 > $0.00022, i.e. after the
    check and 7 requests ($0.000177 spent), not at the first moment 8 worst cases do not fit.
    """
    prices = _prices(tmp_path, **{f"openai-compatible/{MODEL}": {"input": 1.0, "output": 10.0}})
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/{MODEL}@{server.base_url}"
        r = _cli(tmp_path, "run", "chat", "-i", str(_prompts(tmp_path, 20)), "-o", str(tmp_path / "r"), "-m", spec,
                 "-c", "8", "--max-tokens", "4", "--max-cost", "0.00022", prices=prices)
        assert r.exit_code == 4, r.output
        assert 8 <= server.total <= 10, server.total  # the endpoint check included
        spent = _cost(tmp_path / "r")["usd"]
        assert spent <= 0.00022 and spent == pytest.approx((23 + 22 * (server.total - 1)) / 1e6)
        assert f"$0.000{round(spent * 1e6)} spent of $0.00022" in r.stderr
        assert "could cost up to $0.000051" in r.stderr
        assert len(_rows(tmp_path / "r" / "predictions.jsonl")) == server.total - 1  # every paid answer is kept


def test_a_budget_needs_a_price(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/unpriced@{server.base_url}"
        r = _cli(tmp_path, "run", "chat", "-i", str(_prompts(tmp_path, 2)), "-o", str(tmp_path / "r"), "-m", spec,
                 "--max-cost", "5")
        assert r.exit_code == 2 and server.total == 0
    assert f"--max-cost: no price for model {spec}" in r.stderr


def test_the_local_model_is_free_so_a_zero_budget_allows_it(tmp_path: Path) -> None:
    """--max-cost 0 allows only calls that cost nothing; the bundled model is priced at $0."""
    r = _cli(tmp_path, "run", "chat", "-i", str(_prompts(tmp_path, 1)), "-o", str(tmp_path / "r"), "-m", "local",
             "--max-tokens", "4", "--max-cost", "0")
    assert r.exit_code == 0, r.output
    cost = _cost(tmp_path / "r")
    assert cost["usd"] == 0 and cost["models"]["local/SmolLM2-135M-Instruct-Q4_1"]["completion_tokens"] > 0


@pytest.mark.slow
def test_a_budget_stop_inside_the_judge_loses_nothing_that_was_paid_for(tmp_path: Path) -> None:
    """RINoBench with a judge whose items make several calls at once: the budget stops it mid-judging.

    The calls already sent finish and are cached (no traceback, no request cancelled); the
    re-run with a higher budget sends no prompt more often than an unbudgeted run does
    (the one extra request is the second invocation's endpoint check), and scores the same.
    """
    prices = _prices(tmp_path, **{f"openai-compatible/{MODEL}": {"input": 1.0, "output": 4.0}})

    def run(server: FakeOpenAIServer, out: str, *extra: str):
        spec = f"openai-compatible/{MODEL}@{server.base_url}"
        return _cli(tmp_path / out, "run", "rinobench", "-m", spec, "-j", spec, "-c", "1", "-o",
                    str(tmp_path / out / "run"), *extra, prices=prices)

    with FakeOpenAIServer(responder=RinoScript()) as a:
        stopped = run(a, "a", "--max-cost", "0.004")
        assert stopped.exit_code == 4, stopped.output
        assert "Traceback" not in stopped.output and "ERROR" not in stopped.output
        spent = json.loads((tmp_path / "a" / "run" / "calls.json").read_text())["cost"]["usd"]
        assert 0 < spent <= 0.004
        assert not (tmp_path / "a" / "run" / "scores.json").exists()  # stopped before scoring: no partial numbers
        done = run(a, "a", "--max-cost", "1")
        assert done.exit_code == 0, done.output
        counts_a = dict(a.counts)
    with FakeOpenAIServer(responder=RinoScript()) as b:
        assert run(b, "b").exit_code == 0
        counts_b = dict(b.counts)
    assert set(counts_a) == set(counts_b)
    assert all(counts_a[p] <= counts_b[p] + (p == "Reply with OK.") for p in counts_a)
    sa, sb = (json.loads((tmp_path / x / "run" / "scores.json").read_text()) for x in ("a", "b"))
    assert sa["metrics"] == sb["metrics"] and sa["complete"] is True


def test_overwrite_starts_the_folder_total_afresh(tmp_path: Path) -> None:
    prices = _prices(tmp_path, **{f"openai-compatible/{MODEL}": {"input": 1.0, "output": 10.0}})
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/{MODEL}@{server.base_url}"
        base = ["run", "chat", "-i", str(_prompts(tmp_path, 2)), "-o", str(tmp_path / "r"), "-m", spec]
        assert _cli(tmp_path, *base, prices=prices).exit_code == 0
        again = _cli(tmp_path, *base, "--max-tokens", "7", "--overwrite", "--no-cache", prices=prices)
        assert again.exit_code == 0, again.output
    # the second invocation alone: its check (3 + 20) and 2 requests of (2 + 20) millionths
    assert _cost(tmp_path / "r")["usd"] == pytest.approx((23 + 2 * 22) / 1e6)


def test_commands_without_a_summary_say_what_they_cost(tmp_path: Path) -> None:
    """NovBench's stage-1 extraction prints its own output; the cost line goes to stderr."""
    csv = tmp_path / "intro.csv"
    csv.write_text("paper_id,sentence,label\np1,We propose a new method.,1\np1,Results follow.,0\n")
    prices = _prices(tmp_path, **{f"openai-compatible/{MODEL}": {"input": 1.0, "output": 10.0}})
    with FakeOpenAIServer() as server:
        spec = f"openai-compatible/{MODEL}@{server.base_url}"
        r = _cli(tmp_path, "novbench", "extract-descriptions", "-i", str(csv), "-o", str(tmp_path / "s1.jsonl"),
                 "-s", "zero-shot", "-m", spec, prices=prices)
        assert r.exit_code == 0, r.output
        prompts = [prompt for _, _, prompt in server.log]  # the check + one call per sentence
    assert len(prompts) == 3
    usd = (sum(len(x.split()) for x in prompts) * 1.0 + 3 * 2 * 10.0) / 1e6
    from noveval.models.costs import format_usd

    assert f"cost: {format_usd(usd)} for this command" in r.stderr and "test price file" in r.stderr
