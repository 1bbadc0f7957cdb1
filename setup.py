"""Build the Cython snapshot core; fall back to pure Python when no compiler is available."""
from setuptools import setup

try:
    from Cython.Build import cythonize
except ImportError:  # building without Cython: the pure-Python twin is used at run time
    ext_modules = []
else:
    ext_modules = cythonize(
        ["ego_browser/_snapshot.pyx"],
        language_level=3,
        compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True},
        quiet=True,
    )

setup(ext_modules=ext_modules)
