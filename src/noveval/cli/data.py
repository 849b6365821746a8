"""``noveval data list | get | dir``: the real datasets on this machine (docs/data.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import BaseModel

from noveval.cli.common import cli_errors, fail
from noveval.cli.options import DataDirOpt, option_info
from noveval.options import option

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


class ListOptions(BaseModel):
    """The options of :func:`list_command`."""

    details: bool = option(False, "--details", help="Also the files, upstream URLs and notes.")
    as_json: bool = option(False, "--json", help="Print JSON.")


@data_app.command("list")
@cli_errors
def list_command(
    data_dir: DataDirOpt = None,
    details: Annotated[bool, option_info(ListOptions, "details")] = False,
    as_json: Annotated[bool, option_info(ListOptions, "as_json")] = False,
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


class DirOptions(BaseModel):
    """The options of :func:`dir_command`."""

    names: list[str] | None = option(None, argument=True, help="Datasets: print the first folder holding all of them.")


@data_app.command("dir")
@cli_errors
def dir_command(
    names: Annotated[list[str] | None, option_info(DirOptions, "names")] = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Print the data folder to read (for ``D=$(noveval data dir)``); on stderr, which folder holds what.

    Without NAME: the folder that holds the most datasets (the first of those on a tie); with
    NAMEs: the first folder that holds every one of them. None: where ``noveval data get`` writes.
    """
    from noveval.data.catalog import datasets
    from noveval.data.folders import default_folder, holdings, searched_text
    from noveval.settings import data_home

    found = default_folder(data_dir, names or ())
    held = holdings(data_dir)
    for folder, got in held:
        typer.echo(f"{folder}: {', '.join(got) or 'no dataset'}", err=True)
    missing = [n for n in datasets() if not any(n in got for _, got in held)]
    if missing:
        typer.echo(f"in no data folder: {', '.join(missing)} (noveval data get NAME)", err=True)
    if found is None:
        what = ", ".join(names) if names else "any dataset"
        typer.echo(f"note: no data folder holds {what} ({searched_text(data_dir)}); noveval data get writes to "
                   f"{data_home()}", err=True)
    typer.echo(str(found if found is not None else data_home()))


class GetOptions(BaseModel):
    """The options of :func:`get_command`."""

    names: list[str] = option(..., argument=True, help="Datasets to get (noveval data list), or all.")
    to: Path | None = option(None, "--to", help="Data folder to write (default: $NOVEVAL_DATA_DIR, "
                                                "else the user data dir).")
    source: Path | None = option(None, "--from", help="Convert a copy you already have (a checkout of the "
                                                      "upstream repository, or a folder of its files) instead of downloading.")
    mirror: str | None = option(None, "--mirror", help="Fetch https://HOST/PATH as MIRROR/HOST/PATH "
                                                       "(default: $NOVEVAL_DATA_MIRROR).")
    offline: bool = option(False, "--offline", help="Download nothing: print what to download and where.")
    force: bool = option(False, "--force", help="Convert again even when present.")
    verify: bool = option(True, "--verify/--no-verify", help="Check a --from copy against the published "
                                                             "checksums (downloads are always checked).")


@data_app.command("get")
@cli_errors
def get_command(
    names: Annotated[list[str], option_info(GetOptions, "names")],
    to: Annotated[Path | None, option_info(GetOptions, "to")] = None,
    source: Annotated[Path | None, option_info(GetOptions, "source")] = None,
    mirror: Annotated[str | None, option_info(GetOptions, "mirror")] = None,
    offline: Annotated[bool, option_info(GetOptions, "offline")] = False,
    force: Annotated[bool, option_info(GetOptions, "force")] = False,
    verify: Annotated[bool, option_info(GetOptions, "verify")] = True,
) -> None:
    """Download a dataset's public files (resumable, checksummed) and convert them to the formats the systems read."""
    from noveval.data.catalog import datasets, find
    from noveval.data.get import NeedsDownload, get
    from noveval.progress import heartbeat

    if source is not None and not source.exists():
        fail(f"{source}: --from: no such file or folder")
    todo = list(datasets()) if "all" in names else names
    for name in todo:
        find(name)  # an unknown name fails before anything is fetched
    no_network: str | None = None  # after the first, the others are not tried online: one summary at the end
    missing: list[str] = []
    for name in todo:
        try:
            with heartbeat(f"data get {name}"):
                done = get(name, to=to, source=source, mirror=mirror, offline=offline or no_network is not None,
                           force=force, verify=verify)
        except NeedsDownload as e:
            if offline:
                typer.echo(e.instructions + "\n")
            else:
                no_network = no_network or e.message
                missing.append(name)
            continue
        for g in done:
            typer.echo(_said(g))
    if missing:
        _no_network_summary(missing, no_network or "", to)


def _no_network_summary(missing: list[str], cause: str, to: Path | None) -> None:
    """Print what to download for every dataset not got (each once, requirements first), then exit 2."""
    from noveval.data.catalog import find, present_in
    from noveval.data.get import instructions
    from noveval.settings import data_dirs, data_home

    target = to if to is not None else data_home()
    order: list[str] = []

    def add(name: str) -> None:
        ds = find(name)
        for req in ds.requires:
            if present_in(find(req), [target, *data_dirs()]) is None:
                add(req)
        if name not in order:
            order.append(name)

    for name in missing:
        add(name)
    for name in order:
        typer.echo(instructions(find(name), target) + "\n")
    fail(f"{', '.join(order)}: {cause}; the files to download are listed above, with the commands that convert "
         f"{'it' if len(order) == 1 else f'these {len(order)} datasets'}")


def _said(g: Any) -> str:
    if g.action == "present":
        return f"{g.dataset.name}: already in {g.folder} (--force converts it again)"
    if g.action == "copied":
        return f"{g.dataset.name}: copied into {g.folder} from another data folder on this machine"
    return (f"{g.dataset.name}: {len(g.dataset.outputs)} file(s) written to {g.folder} "
            f"({g.downloaded} downloaded, {g.seconds:.1f} s)")
