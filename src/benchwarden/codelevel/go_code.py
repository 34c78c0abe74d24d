"""Go source as :class:`~.units.SourceUnits`, read with go/ast by the rewriter helper (``rewrite -units FILE``).

Names are the tracer's (``importpath.F``, ``importpath.(*T).M``, ``importpath.T.M``); the import path is the
caller's (module path and directory). ``init`` functions belong to the skeleton: they run in every process that
imports the package, so no trace can attribute them. Fingerprints are of go/printer's output without comments.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from benchwarden.codelevel.units import Method, SourceUnits, fingerprint


def go_units(import_path: str, source: bytes) -> SourceUnits:
    """The functions and methods of one Go file of package ``import_path``."""
    from benchwarden.assess.inject import InjectionFailed, run_rewriter

    with tempfile.TemporaryDirectory(prefix="benchwarden-units-") as tmp:
        path = Path(tmp) / "file.go"
        path.write_bytes(source)
        try:
            found = run_rewriter(["-units", str(path)], "reading Go functions")
        except InjectionFailed as exc:
            return SourceUnits(unparsed=f"not valid Go: {str(exc).split(': ', 1)[-1]}")
    methods = {f"{import_path}.{f['name']}": Method(int(f["line"]), fingerprint(f["code"]))
               for f in found.get("functions") or []}
    skeleton = str(found.get("skeleton") or "")
    return SourceUnits(methods, fingerprint(f"package {found['package']}\n{skeleton}"),
                       skeleton_runs=bool(skeleton.strip()))
