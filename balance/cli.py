"""The ``balance`` command line (click). Thin: every command calls the library."""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click

from balance import registry
from balance.errors import BalanceError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 110}


def _plugins(plugins):
    for p in plugins:
        registry.load_plugin(p)


def _parse_params(params: tuple[str, ...], strategies: list[str]) -> list[dict]:
    """``--param greedy.epsilon=0.1`` applies to every seat playing ``greedy``."""
    per_seat = [{} for _ in strategies]
    for item in params:
        if "=" not in item or "." not in item.split("=", 1)[0]:
            raise BalanceError(f"--param {item!r}: expected STRATEGY.KNOB=VALUE, e.g. greedy.epsilon=0.1")
        key, value = item.split("=", 1)
        name, knob = key.split(".", 1)
        seats = [i for i, s in enumerate(strategies) if s == name]
        if not seats and (knob.count(".") >= 1 or ".." in value or "," in value):  # FILE.ENTRY.FIELD=...
            raise BalanceError(f"--param {item!r}: --param sets a strategy knob (STRATEGY.KNOB=V, e.g. "
                               f"greedy.epsilon=0.1); a data field is --field {item} (sweep) or --override KEY=VALUE")
        try:
            v = float(value)
        except ValueError:
            raise BalanceError(f"--param {item!r}: {value!r} is not a number") from None
        if not seats:
            raise BalanceError(f"--param {item!r}: no seat plays {name!r} (strategies: {', '.join(strategies)})")
        for i in seats:
            per_seat[i][knob] = v
    return per_seat


def _matchup(value: str | None):
    if not value:
        return None
    parts = value.split(":")
    if len(parts) != 2 or not all(parts):
        raise BalanceError(f"--matchup {value!r}: expected A:B, e.g. terry:elaine")
    return parts


def _options(items: tuple[str, ...], players: int | None) -> dict:
    """``--set KEY=VALUE`` game options (repeatable); ``--players N`` is ``--set players=N``."""
    opts = {}
    for item in items:
        if "=" not in item or not item.split("=", 1)[0].strip():
            raise BalanceError(f"--set {item!r}: expected KEY=VALUE, e.g. players=4")
        k, v = item.split("=", 1)
        opts[k.strip()] = v.strip()
    if players is not None:
        opts["players"] = str(players)
    return opts


def _spec(game, games, seed, setup, strategy, param, matchup, data, override, chunk_size, plugin, options=None):
    from balance.runs import DEFAULT_CHUNK, RunSpec

    strategies = list(strategy) or ["random"]
    if len(strategies) == 1:
        strategies = strategies * 2
    spec = RunSpec(game=game, games=games, seed=seed, setup=setup, strategies=strategies,
                   strategy_params=_parse_params(param, strategies), matchup=_matchup(matchup),
                   data_dir=data, overrides=list(override),
                   chunk_size=DEFAULT_CHUNK if chunk_size is None else chunk_size,
                   plugins=list(plugin), options=options or {})
    return spec.normalised()


def _setup_options(f):
    options = [
        click.option("--seed", default=1, show_default=True, type=int, help="root seed of the run"),
        click.option("--setup", default=None, help="setup name (see 'balance games'); default: the game's"),
        click.option("--strategy", multiple=True, metavar="NAME",
                     help="strategy for every seat, or one per slot (rotated over the seats per deal); default random"),
        click.option("--param", multiple=True, metavar="STRATEGY.KNOB=V", help="set a strategy knob"),
        click.option("--matchup", default=None, metavar="A:B", help="pin the characters, e.g. terry:elaine"),
        click.option("--data", default=None, type=click.Path(file_okay=False), help="a copy of the game's data folder"),
        click.option("--override", multiple=True, metavar="KEY=VALUE",
                     help="change one data field, e.g. characters.terry.hp=18"),
        click.option("--plugin", multiple=True, metavar="MODULE", help="import MODULE to register strategies"),
        click.option("--set", "game_set", multiple=True, metavar="KEY=VALUE",
                     help="a game option, e.g. players=5 (see 'balance games')"),
        click.option("--players", default=None, type=int, help="number of players (games that take it)"),
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


def _findings_options(f):
    """The findings engine's settings, shared by ``report`` and ``simulate --report``."""
    options = [
        click.option("--min-effect", default=None, type=float, metavar="POINTS",
                     help="smallest edge a finding must reach, in points (default 2); rows within it are 'settled'"),
        click.option("--alpha", default=None, type=float,
                     help="family-wise error over every tested row, Holm (default 0.05)"),
        click.option("--causal-deals", default=None, type=int, metavar="N",
                     help="deals of restricted play per ranked card, for the cards' causal values (default "
                          "20,000, fewer when the run's strategies are slow: about a minute of CPU; 0: none, the "
                          "card table stays correlational)"),
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


def _findings_settings(min_effect, alpha, causal_deals) -> tuple[float | None, float | None, int | None]:
    """Check the findings options: one line and exit 2 for a value out of range."""
    if min_effect is not None and not 0 < min_effect < 100:
        raise BalanceError(f"--min-effect is in points and must lie between 0 and 100, got {min_effect:g}")
    if alpha is not None and not 0 < alpha < 1:
        raise BalanceError(f"--alpha must lie between 0 and 1, got {alpha:g}")
    if causal_deals is not None and causal_deals < 0:
        raise BalanceError(f"--causal-deals must be 0 (none) or a positive number of deals, got {causal_deals}")
    return (None if min_effect is None else min_effect / 100.0), alpha, causal_deals


_DEBUG = {"on": False}  # --debug: an internal error shows its traceback (also BALANCE_DEBUG=1)


@click.group(context_settings=CONTEXT, invoke_without_command=True)
@click.version_option(package_name="balance-toolkit")
@click.option("--debug", is_flag=True, help="show the traceback of an internal error (also: BALANCE_DEBUG=1)")
@click.pass_context
def cli(ctx, debug):
    """Monte Carlo balance analysis for small duel card games.

    Typical session: balance simulate colosseum --games 1000000 --out runs/a, then balance report runs/a.

    Exit codes: 0 ok; 1 a verdict (drift found, a gate failed, fuzz found a failure); 2 bad input or
    environment (an option, a data file, a run folder, an output path that cannot be written, a full disk);
    3 an internal error (a bug: please report it with the output of --debug); 130 interrupted.
    """
    _DEBUG["on"] = _DEBUG["on"] or debug
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


@cli.command()
@click.option("--plugin", multiple=True, metavar="MODULE", help="import MODULE to register strategies")
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False), help="also write the result as JSON (- for standard output)")
def games(plugin, json_out):
    """List games, their setups and strategies."""
    from balance import outputs
    from balance.runs import game_options

    outputs.check_file(json_out, "--json")
    say = _say(json_out)
    _plugins(plugin)
    doc = []
    for name in registry.available_games():
        g = registry.get_game(name)
        say(f"{name} (v{g.version}): {g.title}: {g.description}")
        say("  setups:")
        for s, d in g.setups.items():
            mark = " (default)" if s == g.default_setup else ""
            say(f"    {s}{mark}: {d}")
        opts = game_options(g)
        say(f"  options (--set KEY=VALUE): {', '.join(opts)}" if opts else "  options: none")
        say("  strategies:")
        strategies = list(registry.strategies_for(name).values())
        for s in strategies:
            knobs = ", ".join(f"{k}={v:g}" for k, v in zip(s.param_names, s.params))
            say(f"    {s.name}: {s.description}" + (f" [{knobs}]" if knobs else "")
                + ("" if s.source == "builtin" else f" (from {s.source})"))
        doc.append({"game": name, "version": g.version, "title": g.title, "description": g.description,
                    "setups": dict(g.setups), "default_setup": g.default_setup, "options": list(opts),
                    "strategies": [{"name": s.name, "description": s.description, "source": s.source,
                                    "params": dict(zip(s.param_names, map(float, s.params)))} for s in strategies]})
    if json_out:
        outputs.write_text(json_out, json.dumps({"games": doc}, indent=1, ensure_ascii=False), "--json")


@cli.command()
@click.argument("game")
@click.option("--games", "n_games", default=100_000, show_default=True, type=int,
              help="number of games (at most 10^12)")
@_setup_options
@click.option("--workers", default=None, type=int,
              help="processes (default: all cores); with --executor dask and no --scheduler: LocalCluster workers")
@click.option("--chunk-size", default=None, type=int,
              help="games per chunk file (default: about 16 chunks per worker, 1,000 to 100,000 games; fewer for "
                   "games over 0.25 ms, at least 0.25 s of work)")
@click.option("--executor", default=None, type=click.Choice(["local", "dask"]),
              help="local processes (default) or a dask.distributed cluster (pip install '.[dask]')")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="dask scheduler address (implies --executor dask); default: start a LocalCluster")
@click.option("--out", default=None, type=click.Path(file_okay=False),
              help="run folder, new or empty (default runs/GAME-TIME)")
@click.option("--resume", is_flag=True, help="complete an interrupted run in --out with its own settings")
@click.option("--overwrite", is_flag=True,
              help="replace the run in --out (its manifest, records and report), or write into a folder that is "
                   "not empty")
@click.option("--report", "with_report", is_flag=True,
              help="then build the run's report, as 'balance report RUN_DIR' (in this process: no second start)")
@_findings_options
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False), help="also write the result as JSON (- for standard output)")
@click.pass_context
def simulate(ctx, game, n_games, seed, setup, strategy, param, matchup, data, override, plugin, game_set, players,
             workers, chunk_size, executor, scheduler, out, resume, overwrite, with_report, min_effect, alpha,
             causal_deals, json_out):
    """Simulate GAME in batch and write a run folder (manifest.json + records/chunk-*.parquet).

    Records depend only on the seed and settings, never on --workers, --chunk-size or --executor. A run
    killed at any moment completes with --resume to the records of an uninterrupted run."""
    from balance import outputs
    from balance.runs import auto_chunk_size, default_workers, run

    _plugins(plugin)
    registry.get_game(game)
    if workers is not None and workers <= 0:
        raise BalanceError(f"--workers must be >= 1, got {workers}")
    min_effect, alpha, causal_deals = _findings_settings(min_effect, alpha, causal_deals)  # before the run
    if scheduler and executor == "local":
        raise BalanceError("--scheduler needs --executor dask (the local executor runs on this machine only)")
    executor = executor or ("dask" if scheduler else "local")
    if scheduler and workers is not None:
        raise BalanceError("--workers does not apply with --scheduler: the cluster's own workers run the chunks "
                           "(start each with 'dask worker ADDRESS --nworkers N --nthreads 1')")
    workers = workers or default_workers()
    if resume:
        if not out:
            raise BalanceError("--resume needs --out RUN_DIR (the folder to complete)")
        if overwrite:
            raise BalanceError("--resume completes the run in --out, --overwrite replaces it: give one of them")
        spec = _resume_spec(ctx, Path(out), game)
    else:
        spec = _spec(game, n_games, seed, setup, strategy, param, matchup, data, override,
                     auto_chunk_size(n_games, workers) if chunk_size is None and n_games > 0 else chunk_size,
                     plugin, _options(game_set, players))
    outputs.check_folder(out, "--out")  # before any work: a run never ends on a folder it cannot write
    with outputs.out_folder(out, f"runs/{game}", "--out") as out:  # runs/GAME-TIME: its own, whoever else starts
        outputs.check_file(json_out, "--json")
        if with_report:
            outputs.check_folder(Path(out) / "report", "--out")
        run_dir = Path(out)
        if resume:
            from balance.runs import read_manifest

            total = read_manifest(run_dir)["games"]
        else:
            total = spec.games
        t0 = time.perf_counter()
        progress, close = _progress(total, game)
        try:
            try:
                man = run(run_dir, spec, resume=resume, workers=workers, progress=progress,
                          log=lambda line: click.echo(line, err=True), executor=executor, scheduler=scheduler,
                          overwrite=overwrite, auto_chunk=chunk_size is None and not resume)
            finally:
                close()
        except KeyboardInterrupt:
            click.echo(f"\ninterrupted: {_kept(run_dir)} in {run_dir}; complete it with: "
                       f"balance simulate {game} --resume --out {run_dir}", err=True)
            sys.exit(130)
        except OSError as e:  # a full disk, a folder that became unwritable: the finished chunks stay
            from balance.errors import os_error_line

            raise BalanceError(f"{os_error_line(e)}; {_kept(run_dir)}: free space (or fix the folder) and complete the "
                               f"run with: balance simulate {game} --resume --out {run_dir}") from None
        wall = time.perf_counter() - t0
        cpu = man["timing"]["cpu_seconds"]
        comp = man["timing"].get("compile_load_seconds", 0.0)
        used = man["timing"].get("workers", workers)
        say = _say(json_out)
        say(f"{man['games']:,} games in {wall:.2f} s wall ({man['games'] / max(wall, 1e-9):,.0f} games/s, "
            f"{used} worker{'s' if used > 1 else ''}{', dask' if executor == 'dask' else ''}); {cpu:.2f} s in "
            f"chunks; kernel compile/load {comp:.2f} s")
        say(f"run folder: {run_dir}")
        doc = {"run": str(run_dir), "game": man["game"], "games": man["games"], "seed": man["seed"],
               "strategies": man["spec"]["strategies"], "rotation": int(man.get("rotation", 1)),
               "wall_seconds": round(wall, 3), "games_per_second": round(man["games"] / max(wall, 1e-9), 1),
               "cpu_seconds": cpu, "compile_load_seconds": comp, "workers": used, "executor": executor}
        if with_report:
            doc["report"] = _report(run_dir, None, min_effect, alpha, causal_deals,
                                    echo_err=outputs.is_stdout(json_out))
        if json_out:
            outputs.write_text(json_out, json.dumps(doc, indent=1, ensure_ascii=False), "--json")


def _kept(run_dir: Path) -> str:
    """What an interrupted run kept, for its last line."""
    from balance.runs import read_manifest

    try:
        m = read_manifest(run_dir)
        return f"kept {len(m['chunks']):,} of {m['n_chunks']:,} chunks"
    except BalanceError:
        return "nothing was finished"


# the options that set a run's records, by click parameter name: --resume refuses them when they differ
_RUN_SETTINGS = ("n_games", "seed", "setup", "strategy", "param", "matchup", "data", "override", "chunk_size",
                 "plugin", "game_set", "players")


def _resume_spec(ctx, run_dir: Path, game: str):
    """For --resume: None (the run's own settings), or, when run settings were given too, the run's spec with
    them applied: the run store refuses it in one line if it differs from the run's (they would be ignored)."""
    import dataclasses

    from click.core import ParameterSource

    from balance.runs import RunSpec, read_manifest

    man = read_manifest(run_dir)
    if man["game"] != game:
        raise BalanceError(f"--resume: {run_dir} holds a {man['game']} run, not {game}")
    given = [n for n in _RUN_SETTINGS if ctx.get_parameter_source(n) == ParameterSource.COMMANDLINE]
    if not given:
        return None
    p = ctx.params
    base = RunSpec(**man["spec"])
    changes = {}
    if "n_games" in given:
        changes["games"] = p["n_games"]
    for name in ("seed", "setup", "chunk_size"):
        if name in given:
            changes[name] = p[name]
    if "strategy" in given:
        changes["strategies"] = list(p["strategy"]) * (2 if len(p["strategy"]) == 1 else 1)
    strategies = changes.get("strategies", base.strategies)
    if "param" in given:
        changes["strategy_params"] = _parse_params(p["param"], strategies)
    if "matchup" in given:
        changes["matchup"] = _matchup(p["matchup"])
    if "data" in given:
        changes["data_dir"] = p["data"]
    if "override" in given:
        changes["overrides"] = list(p["override"])
    if "plugin" in given:
        changes["plugins"] = list(p["plugin"])
    if "game_set" in given or "players" in given:
        changes["options"] = {**base.options, **_options(p["game_set"], p["players"])}
    return dataclasses.replace(base, **changes)


@cli.command()
@click.argument("run_dir", type=click.Path())
@click.option("--out", default=None, type=click.Path(file_okay=False), help="report folder (default RUN_DIR/report)")
@_findings_options
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False), help="also write the result as JSON (- for standard output)")
def report(run_dir, out, min_effect, alpha, causal_deals, json_out):
    """Aggregate a run folder: report.html, summary.json, figures/*.png, tables/*.csv.

    The findings at the top are claims tested against each row's fair reference (Holm over every tested row,
    a minimum effect, estimates shrunk against the winner's curse); cards are valued by restricted play.
    --json: the findings, every tested row's verdict, the notes and the page's path."""
    from balance import outputs

    outputs.check_file(json_out, "--json")
    _report(run_dir, out, *_findings_settings(min_effect, alpha, causal_deals), json_out=json_out)


def _report_json(s: dict, page: Path) -> dict:
    """What a CI job reads of a report: the findings, every tested row with its verdict, the notes."""
    return {"report": str(page), "run": s["run"], "findings": s["findings"], "assessment": s["assessment"],
            "notes": s["notes"], "health": s["health"], "report_seconds": s["report_seconds"]}


def _report(run_dir, out, min_effect=None, alpha=None, causal_deals=None, json_out=None, echo_err=False) -> dict:
    """Build the report and say its findings; ``json_out``: also write :func:`_report_json` there;
    ``echo_err``: say it on standard error (the caller writes JSON to standard output)."""
    from balance import analyses, causal, findings
    from balance.runs import read_manifest
    from reports.report import build

    min_effect = findings.DEFAULT_MIN_EFFECT if min_effect is None else min_effect
    alpha = findings.DEFAULT_ALPHA if alpha is None else alpha
    from balance import outputs
    from balance.runs import chunk_files

    read_manifest(Path(run_dir))  # a missing or corrupt run folder: one line, before anything else
    outputs.check_folder(out if out else Path(run_dir) / "report", "--out" if out else "report folder")
    chunk_files(Path(run_dir))  # every chunk against the manifest's sha256: a damaged one is one line, exit 2
    card_values = causal.for_run(Path(run_dir), causal_deals, log=lambda m: click.echo(m, err=True))
    played = analyses.for_run(Path(run_dir), log=lambda m: click.echo(m, err=True))  # the report plays no game
    s = build(Path(run_dir), Path(out) if out else None, min_effect=min_effect, alpha=alpha, card_values=card_values,
              analyses=played)
    dest = Path(out) if out else Path(run_dir) / "report"
    a = s["assessment"]
    say = (lambda line: click.echo(line, err=True)) if echo_err else _say(json_out)
    say(f"{len(s['findings'])} finding{'s' if len(s['findings']) != 1 else ''} among {a['tested']} tested rows "
        f"({a['method']}, family-wise error {100 * a['alpha']:g}%, minimum effect {100 * a['min_effect']:g} points)")
    for f in s["findings"][:8]:
        say(f"- {f['text']}")
    if len(s["findings"]) > 8:
        say(f"- and {len(s['findings']) - 8} more (report.html, summary.json)")
    for n in s["notes"]:
        say(f"- note: {n}")
    say(f"report: {dest / 'report.html'} ({s['report_seconds']:.2f} s)")
    doc = _report_json(s, dest / "report.html")
    if json_out:
        outputs.write_text(json_out, json.dumps(doc, indent=1, ensure_ascii=False), "--json")
    return doc


@cli.command()
@click.argument("game", required=False)
@click.option("--game", "index", required=True, type=int, help="index of the game in the run")
@click.option("--run", "run_dir", default=None, type=click.Path(), help="take every setting from this run folder")
@_setup_options
@click.pass_context
def replay(ctx, game, index, run_dir, seed, setup, strategy, param, matchup, data, override, plugin, game_set,
           players):
    """Tell one game round by round (same seed and settings: the same game as in the run)."""
    from click.core import ParameterSource

    from balance.runs import Prepared, manifest_rotation, read_manifest, run_spec

    if index < 0:
        raise BalanceError(f"--game must be >= 0, got {index}")
    rotation = None  # explicit settings: a new run's rotation
    if run_dir:
        man = read_manifest(Path(run_dir))
        if game and game != man["game"]:
            raise BalanceError(f"--run {run_dir} holds a {man['game']} run, not {game}; drop GAME (the run names it)")
        given = [f"--{n.replace('_', '-')}" if n != "game_set" else "--set"
                 for n in ("seed", "setup", "strategy", "param", "matchup", "data", "override", "game_set", "players")
                 if ctx.get_parameter_source(n) == ParameterSource.COMMANDLINE]
        if given:
            raise BalanceError(f"--run takes every setting from the run; drop {', '.join(given)} (or replay without "
                               f"--run: GAME and its settings)")
        if index >= man["games"]:
            raise BalanceError(f"--game {index:,}: {run_dir} has {man['games']:,} games (0 to {man['games'] - 1:,})")
        spec, rotation = run_spec(run_dir, man), manifest_rotation(man)  # the run's own data (RUN/data)
    else:
        if not game:
            raise BalanceError("replay needs GAME (or --run RUN_DIR)")
        spec = _spec(game, index + 1, seed, setup, strategy, param, matchup, data, override, None, plugin,
                     _options(game_set, players))
    prep = Prepared(spec, rotation)
    # game I of the run is deal I // rotation with the strategies rotated over the seats (balance/runs.py)
    deal, strategies, params, r = prep.game_args(index)
    mod = prep.game.module
    kw = {}
    names = spec.strategies
    differ = len(set(names)) > 1 or prep.rotation > 1
    if differ and prep.game.rotate_strategies:
        # one label per seat: the strategy (with its slot when two slots share a name) that plays it
        seats = int(mod.labels(prep.tables).get("seats", 2))
        slots = [prep.seat_slot(index, s) for s in range(seats)]
        label = [names[k] if names.count(names[k]) == 1 else f"{names[k]} #{k + 1}" for k in range(len(names))]
        kw["names"] = [label[k] for k in slots]
    if prep.rotation > 1:
        click.echo(f"Game {index:,} of the run: deal {deal:,}, the strategies rotated by {r} seat{'s' * (r != 1)}")
    for line in mod.replay(prep.tables, prep.settings, prep.key, deal, strategies, params, **kw):
        click.echo(line)


@cli.command()
@click.argument("file", type=click.Path())
def scenario(file):
    """Play a scripted game from FILE.toml and print each round's state as JSON lines."""
    import tomllib

    try:
        game = tomllib.loads(Path(file).read_text(encoding="utf-8")).get("game", "colosseum")
    except FileNotFoundError:
        raise BalanceError(f"{file}: scenario file not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise BalanceError(f"{file}: not valid TOML: {e}") from None
    runner = registry.get_game(game).scenario
    if runner is None:
        with_runner = [g for g in registry.available_games() if registry.get_game(g).scenario is not None]
        raise BalanceError(f"{file}: game {game!r} has no scenario runner; games with one: {', '.join(with_runner)}")
    for row in runner(Path(file)):
        click.echo(json.dumps(row, ensure_ascii=False))


@cli.command()
@click.argument("target", required=False)
@click.option("--override", multiple=True, metavar="KEY=VALUE", help="check the data with these edits")
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False), help="also write the result as JSON (- for standard output)")
def validate(target, override, json_out):
    """Check data files: a GAME's packaged data, or a data folder DIR (default: every game)."""
    from balance import outputs

    outputs.check_file(json_out, "--json")
    say = _say(json_out)
    checked = []
    targets = []
    if target is None:
        targets = [(g, None) for g in registry.available_games()]
    elif target in registry.available_games():
        targets = [(target, None)]
    elif Path(target).is_dir():
        names = {p.stem for p in Path(target).glob("*.toml")}
        games = [g for g in registry.available_games()
                 if set(registry.get_game(g).module.SCHEMAS) <= names]
        if not games:
            raise BalanceError(f"{target}: no game's data files here; games: {', '.join(registry.available_games())}")
        targets = [(g, target) for g in games]
    else:
        raise BalanceError(f"{target!r} is neither a game ({', '.join(registry.available_games())}) nor a folder")
    for g, folder in targets:
        mod = registry.get_game(g).module
        data = mod.load_data(folder, override)
        mod.build_tables(data)
        n = sum(len(v) if isinstance(v, dict) and mod.SCHEMAS[k].entries else 1 for k, v in data.files.items())
        prov = sum(1 for k, v in data.files.items() if mod.SCHEMAS[k].entries
                   for e in v.values() if e.get("provisional"))
        say(f"{g}: {data.folder}: ok ({n} entries, {prov} provisional)")
        checked.append({"game": g, "folder": str(data.folder), "ok": True, "entries": n, "provisional": prov})
    if json_out:  # a bad file stops at its one error line (exit 2) before this
        outputs.write_text(json_out, json.dumps({"checked": checked}, indent=1, ensure_ascii=False), "--json")


@cli.command()
@click.argument("game")
@click.option("--games", "n_games", default=None, type=int,
              help="games per measurement (default: about 0.4 CPU-s each; with --workers about 4 s of work)")
@click.option("--reps", default=5, type=click.IntRange(min=1), show_default=True,
              help="timed repetitions per strategy: the best and the median are shown")
@click.option("--strategy", multiple=True, metavar="NAME", help="strategies to measure (default: all)")
@click.option("--plugin", multiple=True, metavar="MODULE")
@click.option("--set", "game_set", multiple=True, metavar="KEY=VALUE", help="a game option, e.g. players=4")
@click.option("--workers", "workers_list", default=None, metavar="W1,W2,...",
              help="measure scaling instead: whole runs (chunks, parquet files, manifest) with W1, W2, ... worker "
                   "processes, e.g. 1,2; games/s and the ratio to the first")
@click.option("--reference", is_flag=True,
              help="instead: the Numba / plain-Python reference engine speed ratio on one core (colosseum, rose_duel)")
@click.option("--end-to-end", "end_to_end", is_flag=True,
              help="also time whole `balance simulate` runs (process start, kernels, records written) of about "
                   "--seconds of kernel work with 1 and 2 workers, beside the kernel rate and their ratio (also to "
                   "the kernel's rate on the run's own games)")
@click.option("--seconds", default=6.0, show_default=True, type=click.FloatRange(min=0.5, max=600),
              help="with --end-to-end: the kernel work of each whole run")
@click.option("--runs", "e2e_runs", default=3, show_default=True, type=click.IntRange(1, 20),
              help="with --end-to-end: rounds of the kernel timed on the run's games, then one whole run per "
                   "worker count; the medians shown (a shared machine's speed drifts by 10-40% over minutes)")
@click.option("--playouts", is_flag=True,
              help="instead: the search strategy's playouts per CPU-second beside random games per CPU-second")
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False), help="also write the per-strategy result as JSON (- for standard output)")
def bench(game, n_games, reps, strategy, plugin, game_set, reference, workers_list, end_to_end, seconds, e2e_runs,
          playouts, json_out):
    """Games per CPU-second on one core for each strategy (mirror pairs), and compile/load time.

    Each strategy: ``--reps`` timed repetitions of the same chunk size, the best and the median shown. Timed with
    this thread's CPU time: on a shared machine the wall clock also counts the time spent waiting for a core.
    Records go into one kept buffer sized before the timing, as a run's workers write them.

    With --workers 1,2: games per second of whole runs with 1 and 2 worker processes and their ratio
    (default strategy: random; default games: about 4 s of work per worker count).

    With --end-to-end: for each strategy, also the wall-clock rate of a whole ``balance simulate`` (a new
    process: start, imports, kernels loaded from the cache, chunks, parquet, manifest) of about ``--seconds`` of
    kernel work, with 1 worker and (on a machine with two cores or more) 2, and its ratio to the kernel rate:
    what a user gets of the engine's speed. The kernel is also timed on the run's own games before each round of
    runs (a search strategy's games differ in length by a third: a few small samples are no fair reference; and a
    shared machine's speed drifts). And, from the run's manifest (``timing.kernel_seconds``), the rate its own
    workers simulated at: the run's ratio to that is what its start, writing and end cost, whatever the machine's
    speed did meanwhile (two workers would give x2.00 for free)."""
    from balance import outputs
    from balance.runs import Prepared, RunSpec

    outputs.check_file(json_out, "--json")
    if json_out and (workers_list is not None or reference):
        raise BalanceError("--json writes the per-strategy or the playout measurement; not with --workers or "
                           "--reference")
    if end_to_end and (workers_list is not None or reference):
        raise BalanceError("--end-to-end measures beside the per-strategy kernel rate; not with --workers or --reference")
    say = _say(json_out)
    _plugins(plugin)
    registry.get_game(game)
    names = list(strategy) or list(registry.strategies_for(game))
    import numba

    cpu = platform.processor() or platform.machine()
    say(f"machine: {cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, numba {numba.__version__}")
    try:
        load = ", load average %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        load = ""
    if workers_list is not None:
        counts = _worker_counts(workers_list)
        click.echo(f"scaling: whole runs (records written), {'/'.join(map(str, counts))} workers{load}")
        for name in list(strategy) or names[:1]:
            for line in _bench_scaling(game, name, counts, n_games, _options(game_set, None)):
                click.echo(line)
        return
    if reference:
        _bench_reference(game)
        return
    if playouts:
        _bench_playouts(game, reps, _options(game_set, None), json_out, say, cpu)
        return
    say(f"one core, best of {reps} repetitions{load}")
    say(f"{'pair':<22}{'compile/load s':>15}{'games/CPU-s':>14}{'median':>12}{'rounds/game':>13}")
    results = []
    for name in names:
        prep = Prepared(RunSpec(game=game, games=1, strategies=[name, name],
                                options=_options(game_set, None)).normalised())
        t = time.perf_counter()
        prep.chunk(0, 1)
        compile_s = time.perf_counter() - t
        n = n_games or 500
        while not n_games:  # size the repetitions: about 0.4 CPU-s each
            t = time.thread_time()
            prep.chunk(0, n)
            dt = time.thread_time() - t
            if dt > 0.1:
                n = max(1, int(n * 0.4 / dt))
                break
            n *= 10
        prep.chunk(0, n, reuse=True)  # the kept buffer at its size (its pages faulted in), as after a worker's first chunk
        rates = []
        for r in range(reps):
            t = time.thread_time()
            recs = prep.chunk((r + 1) * n, n, reuse=True)
            rates.append(n / max(time.thread_time() - t, 1e-9))
        rates.sort()
        say(f"{name + ' vs ' + name:<22}{compile_s:>15.2f}{rates[-1]:>14,.0f}{rates[len(rates) // 2]:>12,.0f}"
            f"{recs['rounds'].mean():>13.2f}")
        results.append({"strategy": name, "compile_load_seconds": round(compile_s, 3), "games": n, "reps": reps,
                        "games_per_cpu_s": round(rates[-1], 1), "median_games_per_cpu_s": round(rates[len(rates) // 2], 1),
                        "rounds_per_game": float(recs["rounds"].mean())})
        if end_to_end:
            e2e = _bench_end_to_end(game, name, rates[-1], seconds, _options(game_set, None), plugin, e2e_runs)
            results[-1]["end_to_end"] = e2e
            for w in e2e:
                walls = f" (median of {', '.join(f'{x:.2f}' for x in w['walls'])})" if len(w["walls"]) > 1 else ""
                say(f"  end to end, {w['workers']} worker{'s' * (w['workers'] > 1)}: {w['games']:,} games in "
                    f"{w['wall_seconds']:.2f} s wall{walls} = {w['games_per_s']:,.0f} games/s, "
                    f"x{w['ratio_to_kernel']:.2f} the kernel rate; x{w['ratio_to_kernel_same_games']:.2f} its rate "
                    f"on the same games, timed before each run (median {w['kernel_same_games_per_cpu_s']:,.0f}/CPU-s)")
                say(f"    inside the runs its workers simulated {w['kernel_in_run_games_per_s']:,.0f} games a second "
                    f"each (x{w['kernel_in_run_games_per_s'] / w['kernel_same_games_per_cpu_s']:.2f} of alone): the "
                    f"run gave x{w['ratio_to_kernel_in_run']:.2f} of that rate")
    if json_out:
        doc = {"game": game, "machine": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
               "numba": numba.__version__, "options": _options(game_set, None), "results": results}
        outputs.write_text(json_out, json.dumps(doc, indent=1, ensure_ascii=False), "--json")


def _bench_playouts(game: str, reps: int, options: dict, json_out, say, cpu: str) -> None:
    """``bench --playouts``: the search strategy's playouts per CPU-second (best of ``reps``) beside random games
    per CPU-second on the same process, and their ratio (a playout is a random game from a sampled position)."""
    from balance import outputs
    from balance.protocol import load_attr
    from balance.runs import Prepared, RunSpec

    spec = registry.get_game(game)
    if not spec.playouts:
        raise BalanceError(f"--playouts: {game} has no search strategy yet (games with one: "
                           f"{', '.join(g for g in registry.available_games() if registry.get_game(g).playouts)})")
    prep = Prepared(RunSpec(game=game, games=1, strategies=["random"], options=options).normalised())
    measure = load_attr(spec.playouts)
    prep.chunk(0, 1)
    n = 20_000
    games = playouts_best = 0.0
    for r in range(reps):
        t = time.thread_time()
        prep.chunk((r + 1) * n, n, reuse=True)
        games = max(games, n / max(time.thread_time() - t, 1e-9))
        k, dt = measure(prep.tables, prep.settings, 1.0)
        playouts_best = max(playouts_best, k / max(dt, 1e-9))
    say(f"one core, best of {reps}: random games {games:,.0f}/CPU-s; playouts {playouts_best:,.0f}/CPU-s "
        f"(x{playouts_best / games:.2f}; the goal is at least x0.5)")
    if json_out:
        outputs.write_text(json_out, json.dumps({"game": game, "machine": cpu, "cores": os.cpu_count(),
                                                 "random_games_per_cpu_s": round(games, 1),
                                                 "playouts_per_cpu_s": round(playouts_best, 1),
                                                 "ratio": round(playouts_best / games, 3)}, indent=1), "--json")


def _bench_end_to_end(game: str, name: str, kernel_rate: float, seconds: float, options: dict,
                      plugins, runs: int = 1) -> list[dict]:
    """Whole ``balance simulate`` runs (new processes, as a user starts them) of about ``seconds`` of kernel work:
    wall clock from the process start to its exit, with 1 worker and, with two cores or more, 2.

    ``runs`` rounds, each timing the kernel alone on the run's own games (in this process) and then one run per
    worker count; a run's ratio is to its own round's kernel rate, and the median over the rounds counts. A shared
    machine's speed drifts by 10-40% over minutes: a kernel timed once, before all the runs, made the ratios of
    the same build differ by as much between two benches."""
    import shutil
    import subprocess
    import tempfile

    games = _e2e_games(kernel_rate, seconds, lambda n: _kernel_rate_on(game, name, n, options, plugins))
    exe = Path(sys.executable).parent / "balance"
    cmd = [str(exe) if exe.exists() else sys.executable, *([] if exe.exists() else ["-m", "balance.cli"])]
    counts = [1, 2] if (os.cpu_count() or 1) >= 2 else [1]
    kernels, walls, inside = [], {w: [] for w in counts}, {w: [] for w in counts}
    tmp = Path(tempfile.mkdtemp(prefix="balance-e2e-"))
    try:
        for _ in range(runs):
            kernels.append(_kernel_rate_on(game, name, games, options, plugins))
            for workers in counts:
                args = [*cmd, "simulate", game, "--games", str(games), "--seed", "1", "--workers", str(workers),
                        "--strategy", name, "--out", str(tmp / "run")]
                for p in plugins:
                    args += ["--plugin", p]
                for k, v in options.items():
                    args += ["--set", f"{k}={v}"]
                shutil.rmtree(tmp / "run", ignore_errors=True)
                t = time.perf_counter()
                done = subprocess.run(args, capture_output=True, text=True)
                walls[workers].append(time.perf_counter() - t)
                if done.returncode != 0:
                    raise BalanceError(f"bench --end-to-end: balance simulate failed: {done.stderr.strip()[-300:]}")
                # the kernel's rate inside the run: its games over the seconds its workers spent simulating
                timing = json.loads((tmp / "run" / "manifest.json").read_text())["timing"]
                inside[workers].append(games / max(timing["kernel_seconds"], 1e-9))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = []
    for workers in counts:
        wall = _median(walls[workers])
        rate = games / wall
        ratios = [games / w / k for w, k in zip(walls[workers], kernels)]
        inner = [games / w / k for w, k in zip(walls[workers], inside[workers])]
        out.append({"workers": workers, "games": games, "wall_seconds": round(wall, 3),
                    "walls": [round(x, 3) for x in walls[workers]], "games_per_s": round(rate, 1),
                    "ratio_to_kernel": round(rate / kernel_rate, 3),
                    "kernel_same_games_per_cpu_s": round(_median(kernels), 1),
                    "kernels_same_games": [round(k, 1) for k in kernels],
                    "ratios_to_kernel_same_games": [round(r, 3) for r in ratios],
                    "ratio_to_kernel_same_games": round(_median(ratios), 3),
                    "kernel_in_run_games_per_s": round(_median(inside[workers]), 1),
                    "kernels_in_run": [round(k, 1) for k in inside[workers]],
                    "ratio_to_kernel_in_run": round(_median(inner), 3)})
    return out


E2E_PROBE_BELOW = 1000  # games: a run sized to fewer is re-sized from the kernel's rate on those games


def _e2e_games(kernel_rate: float, seconds: float, rate_on: Callable[[int], float]) -> int:
    """Games for about ``seconds`` of kernel work. Few, slow games (a search strategy's 6 s are a few hundred) are
    sized again from ``rate_on(n)``, the kernel's rate on all ``n`` games of the run so sized: the best of the
    bench's few small samples can be off by a third, and a search strategy's games differ so much in length that
    a part of them is no better (the rose duel's ismcts: 5 games a second on its first 10, 8 on its first 30)."""
    games = max(20, int(kernel_rate * seconds))
    if games < E2E_PROBE_BELOW:
        games = max(20, int(rate_on(max(10, games)) * seconds))
    return games


def _median(xs: list[float]) -> float:
    """The middle value (the upper one of an even count): a value that was measured."""
    return sorted(xs)[len(xs) // 2]


def _kernel_rate_on(game: str, name: str, games: int, options: dict, plugins) -> float:
    """Games per CPU-second of the kernel alone on the very games an end-to-end run plays (seed 1, games
    ``0 .. games-1``), in this process: a search strategy's games differ in length by a third or more, so its rate
    on a few hundred of them is the fair reference, not the best of a few small samples."""
    from balance.runs import Prepared, RunSpec, auto_chunk_size

    prep = Prepared(RunSpec(game=game, games=games, seed=1, strategies=[name], plugins=list(plugins),
                            options=options).normalised())
    size = auto_chunk_size(games, 1)
    prep.chunk(0, 1)  # anything loaded on first use, outside the timing
    cpu = 0.0
    for start in range(0, games, size):
        t = time.thread_time()
        prep.chunk(start, min(size, games - start), reuse=True)
        cpu += time.thread_time() - t
    return games / max(cpu, 1e-9)


def _worker_counts(text: str) -> list[int]:
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        counts = []
    if not counts or any(c < 1 for c in counts):
        raise BalanceError(f"--workers {text!r}: expected worker counts >= 1 separated by commas, e.g. 1,2")
    return counts


def _spin(seconds: float, out) -> None:
    """Busy-loop for ``seconds`` of wall time, then report the CPU seconds this process got."""
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        sum(range(10_000))
    out.put(time.process_time())


def _free_cores(n: int, seconds: float = 1.0) -> float:
    """Cores that ``n`` busy processes get right now (a shared machine lends fewer than it has)."""
    import multiprocessing as mp

    q = mp.get_context("spawn").Queue()
    procs = [mp.get_context("spawn").Process(target=_spin, args=(seconds, q)) for _ in range(n)]
    for p in procs:
        p.start()
    got = [q.get(timeout=60 + seconds) for _ in procs]
    for p in procs:
        p.join()
    return sum(got) / seconds


def _bench_scaling(game, name, counts, n_games, options):
    """Lines of a scaling measurement: one run per worker count into a temp folder, the same games each."""
    import tempfile

    from balance.runs import Prepared, RunSpec, run

    prep = Prepared(RunSpec(game=game, games=1, strategies=[name, name], options=options).normalised())
    prep.warm()
    if n_games is None:  # about 4 s of one core's work per worker in the largest count
        n, dt = 2000, 0.0
        while dt < 0.5:
            n *= 4
            t = time.perf_counter()
            prep.chunk(0, n)
            dt = time.perf_counter() - t
        n_games = int(n / dt * 4.0 * max(counts))
    # 16 chunks per worker: the last chunk's wait (the tail) costs at most ~1/16 of the run
    chunk = max(1, n_games // (16 * max(counts)))
    free = _free_cores(max(counts))
    lines, base, base_cpu = [f"{name + ' vs ' + name}: {n_games:,} games, chunks of {chunk:,}; {max(counts)} busy "
                             f"processes got {free:.2f} cores in a 1 s sample (other busy jobs cap the wall ratio)"], None, None
    for w in counts:
        with tempfile.TemporaryDirectory(prefix="balance-bench-") as tmp:
            spec = RunSpec(game=game, games=n_games, strategies=[name, name], chunk_size=chunk, options=options)
            c0, t = os.times(), time.perf_counter()
            run(Path(tmp) / "run", spec, workers=w)
            wall, c1 = time.perf_counter() - t, os.times()
        # CPU seconds of this process and its (reaped) workers: on a shared machine the wall-clock ratio
        # depends on the free cores, the CPU ratio only on the run's own overheads
        cpu = sum(c1[:4]) - sum(c0[:4])
        rate, cpu_rate = n_games / wall, n_games / max(cpu, 1e-9)
        base, base_cpu = base or rate, base_cpu or cpu_rate
        lines.append(f"  {w} worker{'s' if w > 1 else ' '}: {rate:>12,.0f} games/s  x{rate / base:.2f} wall  "
                     f"({wall:.2f} s; {cpu:.2f} CPU s: x{w * cpu_rate / base_cpu:.2f} with {w} free core"
                     f"{'s' if w > 1 else ''})")
    return lines


@cli.command()
@click.argument("a")
@click.argument("b")
@click.option("--focus", default=None, metavar="T/P/I[:T/P/I]",
              help="fixed focus boxes (thrust/parry/initiative) for A, optionally :B's; default: the strategy's")
@click.option("--modifiers", default=None, metavar="t,p,i,s[:t,p,i,s]",
              help="modifiers to thrust, parry, initiative, strength for A (and :B)")
@click.option("--location", default=None, metavar="LOC[:LOC]", help="fixed hit location: rose, body or an object")
@click.option("--duels", default=20000, show_default=True, type=int, help="duels to simulate")
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--strategy", default="heuristic", show_default=True, help="strategy deciding what is not fixed")
@click.option("--no-cards", is_flag=True, help="no cards in the duel (skills and dice only)")
@click.option("--show", is_flag=True, help="also tell the first duel phase by phase")
@click.option("--data", default=None, type=click.Path(file_okay=False), help="a copy of the game's data folder")
@click.option("--override", multiple=True, metavar="KEY=VALUE", help="change one data field")
def duel(a, b, focus, modifiers, location, duels, seed, strategy, no_cards, show, data, override):
    """Simulate one rose duel between duelists A (challenger) and B (Victor), for designers."""
    from simulators.rose_duel.duel import duel_command

    for line in duel_command(a, b, focus=focus, modifiers=modifiers, location=location, duels=duels, seed=seed,
                             strategy=strategy, no_cards=no_cards, show=show, data=data, overrides=override):
        click.echo(line)


def _bench_reference(game):
    """The Numba / reference speed ratio: the same games from the same streams, on one core."""
    from balance.reference import bench_reference

    r = bench_reference(game)
    click.echo(f"reference engine, {r['what']}: Numba {r['numba_per_s']:,.0f}/s ({r['numba_n']:,}), plain Python "
               f"{r['reference_per_s']:,.0f}/s ({r['reference_n']:,}); Numba / reference = {r['ratio']:,.0f}x")


@cli.command()
@click.argument("game")
@click.option("--games", "n_games", default=10_000, show_default=True, type=int, help="games over random valid data")
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--per-variant", default=500, show_default=True, type=int, help="games per random data variant")
@click.option("--bad-data", default=200, show_default=True, type=int,
              help="corrupted data folders that 'balance validate' must refuse in one line (0: none)")
def fuzz(game, n_games, seed, per_variant, bad_data):
    """Fuzz GAME: random valid data and strategies (no crash, every game ends, invariants hold in a checked
    build, the reference engine agrees) and corrupted data files (one-line errors). Exit 1 if anything broke."""
    from balance import fuzz as F

    registry.get_game(game)
    if bad_data < 0:
        raise BalanceError(f"--bad-data must be >= 0, got {bad_data}")
    progress, close = _progress(n_games, f"{game} fuzz")
    try:
        res = F.fuzz(game, n_games, seed=seed, per_variant=per_variant, progress=progress)
    finally:
        close()
    if bad_data:
        res.bad_data, failures = F.fuzz_bad_data(game, bad_data, seed, validate_one_line)
        res.failures += [f"bad data: {f}" for f in failures]
    for line in F.format_result(res):
        click.echo(line)
    if not res.ok:
        sys.exit(1)


def _progress(total: int, label: str):
    """A stderr progress bar in games with their rate and an ETA, started by the first report (a refused run
    prints only its error). The run store reports games within chunks, so it moves about every half second."""
    bars, t = [], {}

    def rate(_item):
        dt = time.perf_counter() - t["at"]
        done = bars[0].pos - t["from"] if bars else 0
        return f"{done / dt:,.0f} games/s" if dt > 0.5 and done > 0 else None

    def progress(n):
        if not bars:
            bars.append(click.progressbar(length=total, label=label, file=sys.stderr, show_pos=True, show_eta=True,
                                          width=30, item_show_func=rate))
            bars[0].__enter__()
            t["at"], t["from"] = time.perf_counter(), n  # the rate counts this session's games only
        bars[0].update(n, n)

    def close():
        if bars:
            bars[0].__exit__(None, None, None)

    return progress, close


def _warm(spec) -> None:
    """Load (or, on the first run of this code, compile) the game's kernels before a command's work starts, with
    the one-line notice when it takes long (balance.runs.notice_if_slow); the work then finds them loaded."""
    from balance.runs import Prepared, compile_notice, notice_if_slow

    with notice_if_slow(lambda line: click.echo(line, err=True),
                        lambda: compile_notice(spec.game, spec.strategies)):
        Prepared(spec).warm()


def _say(json_out):
    from balance.outputs import say

    return say(json_out)


def _workers(workers):
    from balance.runs import default_workers

    if workers is not None and workers <= 0:
        raise BalanceError(f"--workers must be >= 1, got {workers}")
    return workers or default_workers()


@cli.command()
@click.argument("game")
@click.option("--games", "n_games", default=None, type=int,
              help="deals to play, the clusters of the statistics (a deal is L games when the strategies rotate "
                   "over the seats; default: the game's gate budget, its GameSpec.drift_deals)")
@_setup_options
@click.option("--swap/--no-swap", default=None,
              help="play every deal in both seat orders (default: when the swapped deal is a new game)")
@click.option("--workers", default=None, type=int, help="processes (default: all cores)")
@click.option("--chunk-size", "chunk", default=None, type=int,
              help="deals per task and per record digest (default: the game's, GameSpec.drift_chunk; smaller spreads a "
                   "small baseline over cores)")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="baseline file, e.g. reports/baselines/NAME.json")
def baseline(game, n_games, seed, setup, strategy, param, matchup, data, override, plugin, game_set, players, swap,
             workers, chunk, out):
    """Run GAME and store a drift baseline: settings, a copy of the data, record digests, tracked rows (win rates,
    usage rates, draw and timeout rates) with the per-deal sums the drift gate's statistics need."""
    from balance import drift

    _plugins(plugin)
    registry.get_game(game)
    workers = _workers(workers)
    deals = n_games if n_games is not None else drift.default_deals(game)
    spec = _spec(game, deals, seed, setup, strategy, param, matchup, data, override, None, plugin,
                 _options(game_set, players))
    if chunk is not None and chunk <= 0:
        raise BalanceError(f"--chunk-size must be a positive number of deals, got {chunk}")
    from balance import outputs

    outputs.check_file(out, "--out", allow_stdout=False)  # before the run: it never ends on an unwritable path
    _warm(spec)
    progress, close = _progress(spec.games, game)
    try:
        doc = drift.make_baseline(spec, swap, workers, chunk=chunk or registry.get_game(game).drift_chunk, progress=progress)
    finally:
        close()
    # as drift.write_baseline, through the writer that saves the result elsewhere when the path fails after all
    outputs.write_text(out, json.dumps(doc, indent=1, ensure_ascii=False) + "\n", "--out")
    n_rows = sum(len(v) for v in doc["summary"].values())
    click.echo(f"baseline {out}: {drift.describe_baseline(doc)}; {n_rows} tracked rows in "
               f"{', '.join(doc['summary'])}; {doc['seconds']:.1f} s")


@cli.command("drift")
@click.argument("baseline_file", metavar="BASELINE", type=click.Path())
@click.option("--data", default=None, type=click.Path(file_okay=False), help="the data folder to test (default: the packaged data)")
@click.option("--override", multiple=True, metavar="KEY=VALUE", help="change one data field, e.g. characters.terry.hp=18")
@click.option("--tolerance", default=100 * 0.01, show_default=True, type=float, metavar="POINTS",
              help="the shift (percentage points) the gate is built to catch with >= 80% power (the budgets are "
                   "sized for it); it is not itself a threshold, see --ignore-below")
@click.option("--ignore-below", default=None, type=float, metavar="POINTS",
              help="an estimated shift smaller than this never fails, however significant (default: half the "
                   "tolerance, 0.5)")
@click.option("--odds-tolerance", default=2.0, show_default=True, type=float, metavar="RATIO",
              help="the odds ratio the usage and health rows (rates of an event) are built to catch")
@click.option("--odds-ignore-below", default=1.5, show_default=True, type=float, metavar="RATIO",
              help="usage and health rows also fail when Holm rejects and their odds ratio (0.5 added to each "
                   "count) is beyond this, either way")
@click.option("--fwer", default=0.05, show_default=True, type=float, help="family-wise error rate over all rows (Holm)")
@click.option("--seed", default=None, type=int,
              help="play other deals than the baseline's: a data change is paired on them; unchanged data is "
                   "compared with the stored numbers (a null check); no exact tier")
@click.option("--accept-change", multiple=True, metavar="DIM:KEY",
              help="acknowledge a row that vanished or appeared (a card, Overdrive or character removed or added); "
                   "repeatable, glob patterns allowed, e.g. 'matchup:terry:*'")
@click.option("--accept-new-rows", is_flag=True, help="acknowledge every row that appeared (entries added to the data)")
@click.option("--exact", is_flag=True, help="also fail (exit 1) when the records are not bit-identical (refactors)")
@click.option("--all", "show_all", is_flag=True, help="list every tested row, not only the moved ones")
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False), help="also write the result as JSON")
@click.option("--workers", default=None, type=int, help="processes (default: all cores)")
def drift_cmd(baseline_file, data, override, tolerance, ignore_below, odds_tolerance, odds_ignore_below, fwer, seed,
              accept_change, accept_new_rows, exact, show_all, json_out, workers):
    """Re-run a BASELINE's settings on its seeds and compare: exit 0 nothing failed, 1 drift, 2 bad input.

    Exact tier: the baseline's own data under this code must give identical records (else: behaviour
    changed, with the rows that moved). Statistical tier: the current data against the baseline, paired on
    the same deals, every tracked rate tested. The rule: a row fails when Holm's procedure rejects "no
    shift" (family-wise error --fwer over every tested row) AND its estimated shift is at least
    --ignore-below (default half the tolerance, 0.5 points); the --tolerance (1 point) is the shift the gate
    is built to catch with at least 80% power, and a smaller estimated shift than --ignore-below never
    fails. Rate-of-event rows (usage, draws, timeouts) also fail when Holm rejects and their odds ratio is
    beyond --odds-ignore-below (1.5x either way; built to catch --odds-tolerance, 2x). A row that vanished
    or appeared (a data entry removed or added) fails unless acknowledged (--accept-change,
    --accept-new-rows)."""
    from balance import drift, outputs

    outputs.check_file(json_out, "--json")
    say = _say(json_out)
    workers = _workers(workers)
    if not 0 < tolerance < 100:
        raise BalanceError(f"--tolerance is in percentage points, above 0 and below 100; got {tolerance:g}")
    if ignore_below is not None and not 0 <= ignore_below <= tolerance:
        raise BalanceError(f"--ignore-below is in percentage points, between 0 and the tolerance ({tolerance:g}); "
                           f"got {ignore_below:g}")
    doc = drift.load_baseline(Path(baseline_file))
    rule = drift.Rule(tolerance / 100, None if ignore_below is None else ignore_below / 100, fwer, odds_tolerance,
                      odds_ignore_below)  # bad values: one line before anything runs
    drift.parse_accept(accept_change)
    progress, close = _progress(doc["deals"], doc["game"])
    try:
        res = drift.drift(Path(baseline_file), data=data, overrides=override, tolerance=rule.tolerance,
                          fwer=rule.fwer, workers=workers, exact=exact, seed=seed, progress=progress,
                          ignore_below=rule.ignore_below, odds_tolerance=rule.odds_tolerance,
                          odds_ignore_below=rule.odds_ignore_below, accept_change=accept_change,
                          accept_new_rows=accept_new_rows)
    finally:
        close()
    for line in drift.format_result(res, show_all=show_all):
        say(line)
    say(f"({res.seconds:.1f} s)")
    if json_out:
        outputs.write_text(json_out, json.dumps(drift.result_json(res), indent=1, ensure_ascii=False), "--json")
    if res.exit_code:
        sys.exit(res.exit_code)


@cli.command()
@click.argument("game")
@click.option("--card", multiple=True, metavar="NAME", help="forbid this card (repeatable: all of them at once)")
@click.option("--overdrive", multiple=True, metavar="NAME", help="forbid this Overdrive (games that have them)")
@click.option("--character", multiple=True, metavar="NAME", help="forbid this character (games that choose them)")
@click.option("--games", "n_games", default=50_000, show_default=True, type=int,
              help="deals (each is played unrestricted and once per restricted seat, on the same seed)")
@_setup_options
@click.option("--workers", default=None, type=int, help="processes (default: all cores)")
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False), help="also write the result as JSON")
def restrict(game, card, overdrive, character, n_games, seed, setup, strategy, param, matchup, data, override, plugin,
             game_set, players, workers, json_out):
    """Restricted play: the win-rate change when one seat's strategy may not use an item (paired, both seats).

    Every deal is played unrestricted and with each seat in turn forbidden the item, on the same seed; the
    kernel removes it from the options offered to the strategy (any strategy). Example:
    balance restrict colosseum --card fire --strategy greedy --games 100000"""
    from balance import outputs
    from balance import restrict as R

    outputs.check_file(json_out, "--json")  # before the work: a finished result is never lost on its path
    say = _say(json_out)
    _plugins(plugin)
    registry.get_game(game)
    workers = _workers(workers)
    spec = _spec(game, n_games, seed, setup, strategy, param, matchup, data, override, None, plugin,
                 _options(game_set, players))
    items = {"card": list(card), "overdrive": list(overdrive), "character": list(character)}
    _warm(spec)
    progress, close = _progress(spec.games, f"{game} restricted")
    try:
        res = R.restrict(spec, items, workers=workers, progress=progress)
    finally:
        close()
    for line in R.format_result(res):
        say(line)
    say(f"({res.seconds:.1f} s)")
    if json_out:
        outputs.write_text(json_out, json.dumps(res.to_json(), indent=1, ensure_ascii=False), "--json")


def _renamed(old: str, new: str, what: str):
    """A hidden option with an old spelling: refused in one line naming the new one."""
    def refuse(ctx, param, value):
        if value:
            raise BalanceError(f"{old} was renamed {new} ({what})")
        return value

    return click.option(old, "_renamed_" + old.strip("-"), multiple=True, hidden=True, expose_value=False,
                        callback=refuse)


def _whatif_options(f):
    """Setup options of sweep/autobalance: those of _setup_options (--param is a strategy knob, as everywhere;
    the data fields they vary are --field / --fields) and the tracked dimensions."""
    options = [
        click.option("--seed", default=1, show_default=True, type=int, help="root seed: every variant plays its deals"),
        click.option("--setup", default=None, help="setup name (see 'balance games'); default: the game's"),
        click.option("--strategy", multiple=True, metavar="NAME",
                     help="strategy for both seats, or give it twice (seat 1, seat 2); default random"),
        click.option("--param", "knob", multiple=True, metavar="STRATEGY.KNOB=V", help="set a strategy knob"),
        _renamed("--knob", "--param", "a strategy knob, STRATEGY.KNOB=V, as in every command"),
        click.option("--matchup", default=None, metavar="A:B", help="pin the characters, e.g. terry:elaine"),
        click.option("--data", default=None, type=click.Path(file_okay=False), help="a copy of the game's data folder"),
        click.option("--override", multiple=True, metavar="KEY=VALUE", help="change one data field for every variant"),
        click.option("--plugin", multiple=True, metavar="MODULE", help="import MODULE to register strategies"),
        click.option("--set", "game_set", multiple=True, metavar="KEY=VALUE", help="a game option, e.g. players=5"),
        click.option("--players", default=None, type=int, help="number of players (games that take it)"),
        click.option("--dim", "dims", multiple=True, metavar="DIM",
                     help="tracked dimension (repeatable): meta, character, overdrive, seat, turn_order, card, ..."),
        click.option("--workers", default=None, type=int, help="processes (default: all cores)"),
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


@cli.command()
@click.argument("game")
@click.option("--field", "params", multiple=True, metavar="KEY=V1,V2,...|KEY=LO..HI",
              help="a data field and its values, e.g. characters.terry.hp=16..22 (repeat: the grid of all)")
@click.option("--games", "n_games", default=None, type=int,
              help="deals per grid point (default: a tenth of the game's drift-gate budget)")
@_whatif_options
@click.option("--out", default=None, type=click.Path(file_okay=False), help="folder for sweep.csv and the plots "
              "(default runs/sweep-GAME-TIME)")
@click.option("--list", "list_only", is_flag=True, help="list the game's numeric data fields and exit")
@click.option("--include-printed", is_flag=True,
              help="let --field vary a printed value (or the rulebook's example value); refused without it")
def sweep(game, params, n_games, seed, setup, strategy, knob, matchup, data, override, plugin, game_set, players, dims,
          workers, out, list_only, include_printed):
    """What-if sweep: play every value of --field on the same deals; a table and a plot per tracked win rate."""
    from balance import drift
    from balance import sweep as S

    _plugins(plugin)
    registry.get_game(game)
    deals = n_games if n_games is not None else max(1000, drift.default_deals(game) // 10)
    spec = _spec(game, deals, seed, setup, strategy, knob, matchup, data, override, None, plugin,
                 _options(game_set, players))
    if list_only:
        for line in S.list_fields(spec):
            click.echo(line)
        return
    if not params:
        raise BalanceError(f"sweep needs --field KEY=V1,V2,... (the fields: balance sweep {game} --list)")
    from balance import outputs

    outputs.check_folder(out, "--out")  # before the sweep: its result is never lost on its folder
    workers = _workers(workers)
    fields = S.numeric_fields(spec)
    parsed = [S.parse_param(p, fields, game, include_printed) for p in params]
    with outputs.out_folder(out, f"runs/sweep-{game}", "--out") as out:  # runs/sweep-GAME-TIME: its own
        _warm(spec)
        pdims, _ = S.probe(spec)
        dims = S.check_dims(dims, game, pdims) if dims else S.default_dims(pdims)
        progress, close = _progress(spec.games, f"{game} sweep")
        try:
            res = S.sweep(spec, parsed, dims, workers=workers, progress=progress)
        finally:
            close()
        frame = S.result_frame(res)
        for line in S.format_sweep(res, frame):
            click.echo(line)
        from reports.sweep_plot import write_outputs

        for p in write_outputs(res, out):
            click.echo(f"wrote {p}")


@cli.command()
@click.argument("game")
@click.option("--target", default="0.45:0.55", show_default=True, metavar="LO:HI",
              help="the band every tracked win rate must end in (fractions, or percentages such as 45:55)")
@click.option("--max-edits", default=3, show_default=True, type=int, help="most data fields to change")
@click.option("--fields", "patterns", default="*", show_default=True, metavar="PATTERN[,PATTERN]",
              help="which numeric data fields may change (glob on FILE.ENTRY.FIELD, e.g. 'characters.*.hp')")
@_renamed("--params", "--fields", "the data fields that may change, e.g. --fields 'characters.*.hp'")
@click.option("--games", "n_games", default=None, type=int,
              help="deals per evaluation of a candidate edit (default: a fiftieth of the drift-gate budget)")
@click.option("--screen-games", default=None, type=int,
              help="deals per first-pass screening of every candidate (default: a fifth of --games)")
@click.option("--beam", default=6, show_default=True, type=int, help="candidates per step re-played at --games")
@click.option("--include-printed", is_flag=True,
              help="let the search move printed values (and the rulebook's example values), after every "
                   "provisional field; without it they are left alone")
@click.option("--verify-games", default=None, type=int,
              help="deals of the final before/after table (default: 4x --games)")
@_whatif_options
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False), help="also write the result as JSON")
@click.option("--patch", "patch_out", default=None, type=click.Path(dir_okay=False),
              help="also write the proposal as a patch file (from the repository root: git apply FILE, or "
                   "patch -p1 < FILE)")
def autobalance(game, target, max_edits, patterns, n_games, screen_games, beam, include_printed, verify_games, seed,
                setup, strategy, knob, matchup, data, override, plugin, game_set, players, dims, workers, json_out,
                patch_out):
    """Search the data's provisional numeric fields (printed ones only with --include-printed) for the fewest edits
    that bring every tracked win rate into the --target band; print the proposal as a data diff with a
    before/after table."""
    from balance import autobalance as A
    from balance import drift, outputs
    from balance import sweep as S

    outputs.check_file(json_out, "--json")  # before the search: its result is never lost on its path
    outputs.check_file(patch_out, "--patch", allow_stdout=False)
    say = _say(json_out)
    _plugins(plugin)
    registry.get_game(game)
    band = A.parse_target(target)
    if max_edits < 1:
        raise BalanceError(f"--max-edits must be >= 1, got {max_edits}")
    if beam < 1:
        raise BalanceError(f"--beam must be >= 1, got {beam}")
    deals = n_games if n_games is not None else max(2000, drift.default_deals(game) // 50)
    for opt, v in (("--screen-games", screen_games), ("--verify-games", verify_games)):
        if v is not None and v <= 0:
            raise BalanceError(f"{opt} must be a positive number of deals, got {v}")
    spec = _spec(game, deals, seed, setup, strategy, knob, matchup, data, override, None, plugin,
                 _options(game_set, players))
    workers = _workers(workers)
    _warm(spec)
    pdims, effect = S.probe(spec)
    dims = S.check_dims(dims, game, pdims) if dims else A.default_dims(pdims)
    res = A.autobalance(spec, band, max_edits=max_edits, patterns=patterns, dims=dims,
                        screen_deals=screen_games or max(500, deals // 5), verify_deals=verify_games or 4 * deals,
                        beam=beam, workers=workers, swap=effect == "new", log=lambda s: click.echo(s, err=True),
                        include_printed=include_printed)
    for line in A.format_result(res, patch=patch_out):
        say(line)
    if json_out:
        outputs.write_text(json_out, json.dumps(A.result_json(res), indent=1, ensure_ascii=False), "--json")


@cli.command()
@click.argument("game")
@click.option("--strategy", multiple=True, metavar="NAME", help="a strategy on the ladder (repeatable; default: "
              "every registered strategy of the game)")
@click.option("--games", "n_games", default=1000, show_default=True, type=click.IntRange(min=2),
              help="games per pair (whole deals, each played with the seats swapped); the default takes minutes "
                   "on two cores with the search strategies, a cluster (--executor dask) takes big budgets")
@click.option("--seed", default=1, show_default=True, type=int, help="root seed: every pair plays the same deals")
@click.option("--setup", default=None, help="setup name (see 'balance games'); default: the game's")
@click.option("--param", multiple=True, metavar="STRATEGY.KNOB=V", help="set a strategy knob")
@click.option("--data", default=None, type=click.Path(file_okay=False), help="a copy of the game's data folder")
@click.option("--override", multiple=True, metavar="KEY=VALUE", help="change one data field")
@click.option("--plugin", multiple=True, metavar="MODULE", help="import MODULE to register strategies")
@click.option("--set", "game_set", multiple=True, metavar="KEY=VALUE", help="a game option, e.g. players=4")
@click.option("--players", default=None, type=int, help="number of players (games that take it)")
@click.option("--workers", default=None, type=click.IntRange(min=1), help="processes (default: every core)")
@click.option("--executor", default="local", show_default=True, type=click.Choice(["local", "dask"]),
              help="dask: a dask.distributed cluster (--scheduler, else a LocalCluster of --workers)")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", help="with --executor dask")
@click.option("--figure", default=None, type=click.Path(dir_okay=False), help="also draw the ratings (PNG)")
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False), help="also write the result as JSON (- for standard output)")
def ladder(game, strategy, n_games, seed, setup, param, data, override, plugin, game_set, players, workers, executor,
           scheduler, figure, json_out):
    """Rate strategies against each other: a round robin on the same deals with the seats swapped, Bradley-Terry
    ratings on the Elo scale with 95% intervals (bootstrap over deals), the head-to-head table, and how many skill
    levels the ladder tells apart."""
    from balance import ladder as L
    from balance import outputs

    _plugins(plugin)
    outputs.check_file(json_out, "--json")
    if figure:
        outputs.check_file(figure, "--figure", allow_stdout=False)
    names = list(strategy) or list(registry.strategies_for(game))
    per_name = {}
    for d, name in zip(_parse_params(param, names), names):
        per_name[name] = d
    say = outputs.say(json_out)
    from balance.runs import default_workers

    lad = L.play(game, names, n_games, seed, setup, per_name, _options(game_set, players), data, override, plugin,
                 workers or default_workers(), executor=executor, scheduler=scheduler)
    for line in L.format_ladder(lad):
        say(line)
    if json_out:
        outputs.write_text(json_out, json.dumps(lad.to_json(), indent=1, ensure_ascii=False), "--json")
    if figure:
        from reports.ladder_plot import draw

        say(f"figure: {draw(lad.to_json(), figure)}")


@cli.command()
@click.argument("game")
@click.option("--tiers", default="random,greedy", show_default=True, metavar="S1,S2,...",
              help="strategies, weakest first: each plays every seat of its own run on the same deals")
@click.option("--games", "n_games", default=20_000, show_default=True, type=click.IntRange(min=100),
              help="games a tier")
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--setup", default=None, help="setup name (see 'balance games'); default: the game's")
@click.option("--set", "game_set", multiple=True, metavar="KEY=VALUE", help="a game option, e.g. players=4")
@click.option("--players", default=None, type=int, help="number of players (games that take it)")
@click.option("--workers", default=None, type=click.IntRange(min=1), help="processes (default: every core)")
@click.option("--ladder-games", default=400, show_default=True, type=click.IntRange(min=2),
              help="games a pair for the tiers' ladder (the skill depth)")
@click.option("--causal-deals", default=2000, show_default=True, type=click.IntRange(min=0),
              help="deals of restricted play a tier for the cards' values (0: none)")
@click.option("--plugin", multiple=True, metavar="MODULE", help="import MODULE to register strategies")
@click.option("--out", default=None, type=click.Path(file_okay=False),
              help="folder for the tiers' runs and reports, skill.html and skill.json")
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False), help="also write the result as JSON (- for standard output)")
def skill(game, tiers, n_games, seed, setup, game_set, players, workers, ladder_games, causal_deals, plugin, out,
          json_out):
    """Verdicts by skill tier: the headline analysis (seats, characters or decks, matchups, Overdrives, cards by
    restricted play) at each tier on the same deals, one page showing each finding's estimate per tier and
    whether it holds at every tier, only under weak play or only under strong play, and the skill depth."""
    from balance import api, outputs

    outputs.check_file(json_out, "--json")
    if out:
        outputs.check_folder(out, "--out")
    say = outputs.say(json_out)
    res = api.skill(game, [t.strip() for t in tiers.split(",") if t.strip()], n_games, seed, out, setup,
                    _options(game_set, players), workers, ladder_games, causal_deals, plugins=plugin)
    d = res["depth"]
    say(f"{game}: {', '.join(res['tiers'])} (weakest first), {n_games:,} games a tier; skill depth "
        f"{d['span']:.0f} Elo from {d['weakest']} to {d['strongest']}, {d['levels']} levels told apart")
    for c, k in res["counts"].items():
        if c != "none":
            say(f"  {k:4d} finding rows: {c}")
    for r in [r for r in res["rows"] if r["holds"] != "none"][:15]:
        est = "  ".join(f"{t} {100 * r['tiers'][t]['estimate']:.1f}%" if t in r["tiers"] else f"{t} -"
                        for t in res["tiers"])
        say(f"  {r['dimension']:12s} {r['label'][:28]:28s} {est}  -> {r['holds']}")
    say(f"page: {res['page']}")
    if json_out:
        outputs.write_text(json_out, json.dumps(res, indent=1, ensure_ascii=False), "--json")


from balance.cli_ci import check, compare  # noqa: E402  (comparing runs and CI gates: their own module)

cli.add_command(compare)
cli.add_command(check)


def validate_one_line(folder: Path) -> tuple[int, str]:
    """Run ``balance validate FOLDER`` in this process: (exit code, what it printed to stderr), for the bad-data
    fuzz (``balance.fuzz.fuzz_bad_data``). A bug inside the CLI is its internal error, exit code 3 (the fuzz
    counts it as a failure); an exception escaping the CLI altogether comes back as exit code -1."""
    import contextlib
    import io
    import traceback

    err = io.StringIO()
    code = 0
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            main(["validate", str(folder)])
        except SystemExit as e:
            code = int(e.code or 0)
        except Exception:  # noqa: BLE001 - exactly what the fuzz looks for
            return -1, traceback.format_exc()
    return code, err.getvalue()


GC_THRESHOLDS = (100_000, 50, 100)  # the console script's (gc.set_threshold): a young collection every 10^5 objects


def main(argv=None):
    """Entry point. Exit codes (README, "The command line"): 0 ok, 1 a verdict (drift, a failed gate), 2 bad input
    or environment (one line naming the option or path), 3 an internal error (one line; the traceback with
    --debug or BALANCE_DEBUG=1), 130 interrupted."""
    import gc

    if argv is None:
        # the process's own command (the console script): its start makes ~10^6 long-lived objects (numba, the
        # kernels), which the default thresholds (700, 10, 10) walk again and again: 30 ms of every start
        gc.set_threshold(*GC_THRESHOLDS)
    try:
        _main(argv)
    finally:
        if argv is None:
            # Python's shutdown collection would walk every object numba and the kernels made, ~0.12 s of each
            # command's wall time; frozen, it skips them (0.02 s)
            gc.freeze()



def _main(argv=None):
    from balance.errors import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, os_error_line

    args = sys.argv[1:] if argv is None else list(argv)
    _DEBUG["on"] = os.environ.get("BALANCE_DEBUG", "") not in ("", "0") or "--debug" in args[:1]
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())  # --plugin MODULE finds MODULE.py in the current folder, as with python -m
    try:
        cli.main(args=args, standalone_mode=False, prog_name="balance")
    except BalanceError as e:
        click.echo(f"error: {_one_line(str(e))}", err=True)
        sys.exit(e.exit_code)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as e:
        msg = e.format_message().replace("\n", " ")
        sub = next((a for a in args if not a.startswith("-")), "")
        click.echo(f"error: {msg} (see balance {sub + ' ' if sub else ''}--help)", err=True)
        sys.exit(EXIT_USAGE)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:  # the reader went away (balance games | head): nothing left to say
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        sys.exit(0)
    except OSError as e:  # the environment: a full disk, a path that cannot be written or read
        click.echo(f"error: {_one_line(os_error_line(e))}", err=True)
        sys.exit(EXIT_USAGE)
    except Exception as e:  # a bug: one line, the traceback on request
        if _DEBUG["on"]:
            import traceback

            traceback.print_exc()
        why = _one_line(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__, 300)
        hint = ("" if _DEBUG["on"] else "; rerun with --debug (balance --debug COMMAND ...) or BALANCE_DEBUG=1 for "
                "the traceback")
        click.echo(f"internal error (a bug in the toolkit, not in your input): {why}{hint}; please report it with "
                   f"the command and that traceback", err=True)
        sys.exit(EXIT_INTERNAL)
    sys.exit(0)


def _one_line(text: str, most: int | None = None) -> str:
    line = " ".join(str(text).split())
    return line if most is None or len(line) <= most else line[:most - 3] + "..."


if __name__ == "__main__":
    main()
