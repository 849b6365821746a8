"""The data RINoBench reads (``noveval data list``): its gold splits, rubric and published predictions.

The gold ``train``/``test`` splits come from the Hugging Face dataset TimSchopf/RINoBench
(read with ``datasets``) and, when that cannot be loaded or its rows are not RINoBench
items, from the same files in the GitHub repository at a pinned commit (checked by their git
blob ids). Either way every row is checked as a RINoBench item with its gold score and
written as the published ``train.json`` / ``test.json`` (a JSON array, indented by 2). The rubric and the
seven models' predictions are copied from the repository unchanged. The pairwise task
(``novelty-pairs``) reads the same test split.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

from noveval.benchmarks.rinobench.data import load_items, load_predictions, load_rubric
from noveval.data.fetch import RAW
from noveval.data.inputs import Inputs
from noveval.data.spec import Dataset, HFDataset, Remote
from noveval.errors import InputError
from noveval.io import read_json, write_json

log = logging.getLogger("noveval")

REPO = "TimSchopf/RINoBench"
COMMIT = "d94cd7b3ae8b336cd97e6ae274b3120268dbea82"
PREDICTIONS = {  # model -> sha256 of data/novelty_predictions/novelty_predictions-<model>.json
    "DeepSeek-R1": ("c08281938c7fd4b5a1c221e2ac955f1572c4e3fcd25d8e2ec315258999cf5d54", 230415),
    "Llama-3.1-8B-Instruct": ("64d076f123efc8adc08967b0c7efd74c41bf8e3344f3fc76c82d6593ac1c8a96", 182896),
    "Llama-3.3-70B-Instruct": ("cc2857cc7579af6c8f8d4e9cea45ae3f55f085f0aac8028d024309c0be1dae4c", 241840),
    "Llama-4-Scout-17B-16E-Instruct": ("35e943de9376953b4d318265ff5fa6c293bb753169ca48d6a06369e0b5778dd8", 255262),
    "gpt-5-2025-08-07": ("8fdd927ab9a1b2af844fa4c9869d1955b3ce3f214f77917179a9e24b44065a13", 266065),
    "gpt-oss-120b": ("15b13ec7f4a96278e011936c9d63137f6595a8c1153c87c5a49074b29d4370f1", 209762),
    "o3-2025-04-16": ("7dbf130ff30d8b84fad456c82961ead3753ddf3de491f57c542d43a4aec6487e", 277895),
}
SPLITS = ("train", "test")


def _file(key: str, path: str, **check: Any) -> Remote:
    return Remote(key=key, url=f"{RAW}/{REPO}/{COMMIT}/{path}", path=path, **check)


RINOBENCH = Dataset(
    name="rinobench",
    title="RINoBench: 1,381 research ideas with gold 1-5 novelty scores (train/test), the rubric, 7 models' predictions",
    outputs=("rinobench/train.json", "rinobench/test.json", "rinobench/label_descriptions.json",
             *(f"rinobench/predictions/novelty_predictions-{m}.json" for m in PREDICTIONS)),
    sources=(
        HFDataset(key="hf", repo_id=REPO, splits=SPLITS),
        _file("train", "data/final_benchmark_dataset/train.json", git_sha1="f58e7677de7eadacaf8cd8b9128b65a22c7438ae"),
        _file("test", "data/final_benchmark_dataset/test.json", git_sha1="9e2c335974047475781a8bc0d57299565d658779"),
        _file("rubric", "data/final_benchmark_dataset/label_descriptions.json",
              sha256="dd403c456084cbd3fc03eee1ca491b70fffb5d8aef495364c913d85fdf294d20", size=607),
        *(_file(f"predictions-{m}", f"data/novelty_predictions/novelty_predictions-{m}.json", sha256=s, size=n)
          for m, (s, n) in PREDICTIONS.items()),
    ),
    homepage=f"https://github.com/{REPO}",
    licence="none stated (no licence file in the repository)",
    size="about 20 MB download (estimated: the gold files' size is not published), 20 MB on disk",
    convert=f"{__name__}:convert",
    notes="The project's copy has the rubric and predictions but not the gold splits (train.json, "
          "test.json): get them here.",
)


def _gold_from_hub(inputs: Inputs) -> dict[str, list[dict[str, Any]]] | None:
    rows = inputs.hf("hf")
    if rows is None:
        return None
    try:
        for split in SPLITS:
            load_items(rows[split], require_gold=True)
    except InputError as e:
        log.warning("%s on the hub: %s split: %s; using the repository's files instead", REPO, split, e)
        return None
    return rows


def convert(inputs: Inputs, out: Path) -> None:
    """Write ``out/rinobench``: the gold splits (hub, else repository files), rubric and predictions."""
    dest = out / "rinobench"
    (dest / "predictions").mkdir(parents=True, exist_ok=True)
    rows = _gold_from_hub(inputs)
    for split in SPLITS:
        write_json(dest / f"{split}.json", rows[split] if rows is not None else read_json(inputs.file(split)))
        load_items(dest / f"{split}.json", require_gold=True)
    shutil.copyfile(inputs.file("rubric"), dest / "label_descriptions.json")
    load_rubric(dest / "label_descriptions.json")
    for model in PREDICTIONS:
        name = f"novelty_predictions-{model}.json"
        shutil.copyfile(inputs.file(f"predictions-{model}"), dest / "predictions" / name)
        load_predictions(dest / "predictions" / name)


DATASETS = (RINOBENCH,)
"""RINoBench's gold, rubric and predictions."""
