"""``agent-import template``: bring the template's own repository in step with this one.

Copier clones the plugin template from .agent-import/template, a repository of copier.yml and
copier-template/ alone, replayed from this repository's history (the same commits on every
clone). `agent-import import` and `update` keep it in step; run this command before a plain
`copier update runtime/plugins/ID --defaults` after the template changed, or on a fresh clone.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "template",
        help="bring .agent-import/template (what Copier clones) in step with the template",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from generator.render.template import find_template
    from generator.render.template_repo import copier_source
    from generator.repository import find_root

    template = find_template(find_root(Path.cwd()))
    source = copier_source(template.root, template.commit)
    dirty = " (uncommitted template changes are left out)" if template.dirty else ""
    print(
        f"{source.src_path} at {source.commit[:12]}: the template of commit "
        f"{template.commit[:12]}{dirty}"
    )
    return 0
