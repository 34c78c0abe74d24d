"""The ``[affected]`` table of benchwarden.toml: paths whose changes never affect a benchmark.

```toml
[affected]
ignore = ["notebooks/*", "scripts/release.sh"]   # added to the built-in list (documentation, CI files, ...)
```

Patterns are shell-style (``fnmatch``), matched against the repository-relative path and against the file
name, as the built-in :data:`benchwarden.codelevel.changes.DEFAULT_IGNORE` are.  They only add to that list:
a project cannot make documentation count, and nothing ignored is hidden — every output lists it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator


class AffectedSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ignore: tuple[str, ...] = ()

    @field_validator("ignore")
    @classmethod
    def _patterns(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in value:
            if not pattern.strip():
                raise ValueError("an ignore pattern must not be empty")
            if pattern.strip() in ("*", "**", "*/*"):
                raise ValueError(f"{pattern!r} would ignore every change; list the paths that cannot matter")
        return value
