"""``noveval data list | get | dir``: the real datasets on this machine (docs/data.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from noveval.cli.common import cli_errors, fail
from noveval.cli.options import DataDirOpt

data_app = typer.Typer(help="The real datasets the systems read: list them, get (download and convert) them.",
                       no_args_is_help=True)


def _row(ds: Any, folders: list[Path]) -> dict[str, Any]:
    from noveval.data.catalog import present_in, used_by

    where = present_in(ds, folders)
    return {"name": ds.name, "title": ds.title, "used_by": used_by(ds.name), "homepage": ds.homepage,
            "sources": [s.url for s in ds.sources], "licence": ds.licence, "size": ds.size,
            "outputs": list(ds.outputs), "requires": list(ds.requires), "notes": ds.notes,
            "present": str(where) if where is not None else None}


def _show(row: dict[str, Any], details: bool) -> None:
    typer.echo(f"{row['name']}: {row['title']}")
    present = row["present"] or f"missing (noveval data get {row['name']})"
    items = [("used by", ", ".join(row["used_by"]) or "-"), ("source", row["homepage"]),
             ("licence", row["licence"]), ("size", row["size"]), ("present", present)]
    if details:
        items += [("files", ", ".join(row["outputs"])), ("upstream", "\n             ".join(row["sources"][:12])
                  + (f"\n             ... {len(row['sources']) - 12} more" if len(row["sources"]) > 12 else "")),
                  ("notes", row["notes"] or "-")]
        if row["requires"]:
            items.append(("requires", ", ".join(row["requires"])))
    for k, v in items:
        typer.echo(f"  {k + ':':<10} {v}")


@data_app.command("list")
@cli_errors
def list_command(
    data_dir: DataDirOpt = None,
    details: Annotated[bool, typer.Option("--details", help="Also the files, upstream URLs and notes.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Every dataset the systems read: its public source, licence, size, users, and whether it is here."""
    from noveval.data.catalog import datasets
    from noveval.settings import data_dirs, data_home

    folders = data_dirs(data_dir)
    rows = [_row(ds, folders) for ds in datasets().values()]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    typer.echo(f"data folders searched: {', '.join(map(str, folders)) or '(none yet)'}; "
               f"noveval data get writes to {data_home()}\n")
    for row in rows:
        _show(row, details)
        typer.echo()


@data_app.command("dir")
@cli_errors
def dir_command(data_dir: DataDirOpt = None) -> None:
    """Print the data folder commands read by default (the first that exists), for ``D=$(noveval data dir)``."""
    from noveval.settings import data_dir as find
    from noveval.settings import data_home

    found = find(data_dir)
    if found is None:
        typer.echo(f"note: no data folder yet; noveval data get writes to {data_home()}", err=True)
    typer.echo(str(found if found is not None else data_home()))


@data_app.command("get")
@cli_errors
def get_command(
    names: Annotated[list[str], typer.Argument(help="Datasets to get (noveval data list), or all.", show_default=False)],
    to: Annotated[Path | None, typer.Option("--to", help="Data folder to write (default: $NOVEVAL_DATA_DIR, "
                                            "else the user data dir).")] = None,
    source: Annotated[Path | None, typer.Option("--from", help="Convert a copy you already have (a checkout of the "
                                                "upstream repository, or a folder of its files) instead of downloading.")] = None,
    mirror: Annotated[str | None, typer.Option("--mirror", help="Fetch https://HOST/PATH as MIRROR/HOST/PATH "
                                               "(default: $NOVEVAL_DATA_MIRROR).")] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Download nothing: print what to download and where.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Convert again even when present.")] = False,
    verify: Annotated[bool, typer.Option("--verify/--no-verify", help="Check a --from copy against the published "
                                         "checksums (downloads are always checked).")] = True,
) -> None:
    """Download a dataset's public files (resumable, checksummed) and convert them to the formats the systems read."""
    from noveval.data.catalog import datasets
    from noveval.data.get import NeedsDownload, get
    from noveval.progress import heartbeat

    if source is not None and not source.exists():
        fail(f"{source}: --from: no such file or folder")
    for name in (list(datasets()) if "all" in names else names):
        try:
            with heartbeat(f"data get {name}"):
                done = get(name, to=to, source=source, mirror=mirror, offline=offline, force=force, verify=verify)
        except NeedsDownload as e:
            typer.echo(e.instructions + "\n")
            if not offline:
                fail(f"{name}: {e.message}; the files to download are listed above")
            continue
        for g in done:
            typer.echo(_said(g))


def _said(g: Any) -> str:
    if g.action == "present":
        return f"{g.dataset.name}: already in {g.folder} (--force converts it again)"
    if g.action == "copied":
        return f"{g.dataset.name}: copied into {g.folder} from another data folder on this machine"
    return (f"{g.dataset.name}: {len(g.dataset.outputs)} file(s) written to {g.folder} "
            f"({g.downloaded} downloaded, {g.seconds:.1f} s)")
