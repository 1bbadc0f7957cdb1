"""Build hooks that pyproject.toml cannot express.

* The Cython snapshot core is optional: without a C compiler (or without Cython) the build
  goes on with ONE warning and the pure-Python twin (``ego_browser/snapshot/twin.py``) is used
  at run time; ``python -m ego_browser doctor`` reports which core is loaded.
* The entry skill and its site learnings live at the repository root (``skills/ego-browser``),
  where agents and people edit them; the wheel carries a copy as ``ego_browser/_skill`` because
  ``install-skill``, ``validate-skills`` and ``learn_context()`` read it at run time
  (``ego_browser/learning/loader.py`` looks there first).
"""

import os
import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SKILL = ROOT / "skills" / "ego-browser"
DEMO_SITE = ROOT / "demo" / "site"
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".DS_Store")

FALLBACK_WARNING = (
    "WARNING: ego_browser: the Cython snapshot core was not built ({why}); the pure-Python twin "
    "will be used (same results, slower snapshots). Install a C compiler (e.g. apt-get install "
    "gcc python3-dev) and reinstall to get the compiled core."
)


class build_py_with_skill(build_py):
    def run(self):
        super().run()
        if not (SKILL / "SKILL.md").is_file():
            raise SystemExit(f"the entry skill is missing: {SKILL} (an incomplete source tree?)")
        dest = Path(self.build_lib) / "ego_browser" / "_skill" / "ego-browser"
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(SKILL, dest, ignore=_SKIP)
        # `ego-browser demo-site` serves the tutorial's shop from the package (ego_browser/cli/demo_site.py)
        site = Path(self.build_lib) / "ego_browser" / "_demo_site"
        if site.exists():
            shutil.rmtree(site)
        shutil.copytree(DEMO_SITE, site, ignore=_SKIP)


class optional_build_ext(build_ext):
    """A failed compile is not a failed install: the twin computes the same snapshots."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # no compiler at all surfaces as a platform/exec error here
            self._fall_back(exc)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:
            self._fall_back(exc)

    def _fall_back(self, exc):
        if getattr(self, "_warned", False):
            return
        self._warned = True
        why = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        print(FALLBACK_WARNING.format(why=why[:200]), file=sys.stderr)


def _ext_modules():
    if os.environ.get("EGO_BROWSER_PURE_PYTHON"):  # an explicit choice, e.g. for a pure wheel
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        # an sdist carries the generated C file, so no Cython is needed to compile it
        from setuptools import Extension

        c_file = ROOT / "ego_browser" / "_snapshot.c"
        if not c_file.is_file():
            print(FALLBACK_WARNING.format(why="neither Cython nor ego_browser/_snapshot.c"), file=sys.stderr)
            return []
        return [Extension("ego_browser._snapshot", ["ego_browser/_snapshot.c"])]
    return cythonize(
        ["ego_browser/_snapshot.pyx"],
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True},
        quiet=True,
    )


setup(
    ext_modules=_ext_modules(),
    cmdclass={"build_py": build_py_with_skill, "build_ext": optional_build_ext},
)
