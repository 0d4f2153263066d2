"""The atomic writer: a plugin is built in a staging folder and moved into place in one rename.

The staging folder is a hidden sibling inside the plugins folder (same file system, so the move
is a ``rename``; hidden, so the runtime's discovery skips it), or a system temporary folder for a
dry run, which must not touch the repository at all. Whatever happens before ``commit``, the
plugins folder is left as it was: the staging folder is always removed, and an existing plugin
(replaced only with ``force``) is restored if the swap fails half-way.

A write first claims the plugin id (``claim.py``) and holds the claim until the staging folder is
gone, so of two imports of one id only one gets past the check that the folder is free. The
check runs again under the claim just before the move: a plain ``rename`` would replace an empty
folder made meanwhile (by hand, say). A dry run writes nothing into the repository and takes no
claim.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from types import TracebackType

from generator.errors import AgentImportError
from generator.render.claim import Claim

STAGING_PREFIX = ".agent-import-staging-"


def replace_with(target: Path, staged: Path) -> None:
    """Put a copy of ``staged`` (built elsewhere: an update's worktree) in place of ``target``,
    an existing plugin folder: copied to a hidden sibling, then swapped in by two renames; the old
    folder comes back if the swap fails. The caller holds the plugin id's claim."""
    scratch = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX + target.name + "-", dir=target.parent))
    try:
        fresh, previous = scratch / target.name, scratch / f"{target.name}.previous"
        shutil.copytree(staged, fresh, symlinks=True)
        os.rename(target, previous)
        try:
            os.rename(fresh, target)
        except OSError as exc:
            os.rename(previous, target)
            raise AgentImportError(f"could not move the update into {target}: {exc}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


class Staging:
    """``folder`` is where the plugin is built; ``commit()`` makes it ``plugins_dir/plugin_id``."""

    def __init__(
        self, plugins_dir: Path, plugin_id: str, *, force: bool = False, dry_run: bool = False
    ) -> None:
        if not plugins_dir.is_dir():
            raise AgentImportError(f"plugins folder {plugins_dir} does not exist")
        self.target = plugins_dir / plugin_id
        self._force = force
        self._claim = None if dry_run else Claim(plugins_dir, plugin_id)
        try:
            self._check_free()
            parent = None if dry_run else plugins_dir
            self._scratch = Path(
                tempfile.mkdtemp(prefix=STAGING_PREFIX + plugin_id + "-", dir=parent)
            )
        except BaseException:
            self._release()
            raise
        self.folder = self._scratch / plugin_id

    def commit(self) -> Path:
        """Move the staged plugin into place (replacing an existing one only with ``force``);
        return its folder."""
        self._check_free()
        backup = self._scratch / f"{self.target.name}.previous"
        replacing = self.target.exists()
        if replacing:
            os.rename(self.target, backup)
        try:
            os.rename(self.folder, self.target)
        except OSError as exc:
            if replacing:
                os.rename(backup, self.target)
            raise AgentImportError(f"could not move the plugin into {self.target}: {exc}") from None
        return self.target

    def close(self) -> None:
        """Remove the staging folder (and a replaced plugin's old copy), then give up the claim."""
        shutil.rmtree(self._scratch, ignore_errors=True)
        self._release()

    def _check_free(self) -> None:
        if self.target.exists() and not self._force:
            raise AgentImportError(
                f"{self.target} already exists; use --force to replace it "
                "(the old folder is kept if anything fails)"
            )

    def _release(self) -> None:
        if self._claim is not None:
            self._claim.release()

    def __enter__(self) -> Staging:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
