"""Build step beyond pyproject.toml: the wheel carries the data files the library reads.

The printed paper matrices and the dataset recipes live in ``data/`` of the repository, where
the workflow and the results archive name them. ``build_py`` copies the folders listed in
``duelbench.package_data.FOLDERS`` to ``duelbench/_checkout/data/`` of the build, where an
installation without the checkout reads them (see ``src/duelbench/package_data.py``), and
lists them as its source files, which puts them into the sdist. An editable install reads them
from the checkout and copies nothing.
"""

import runpy
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# read without importing the package (its dependencies need not be installed to build it)
FOLDERS = runpy.run_path(str(HERE / "src" / "duelbench" / "package_data.py"))["FOLDERS"]
TARGET = ("duelbench", "_checkout", "data")


def packaged_files():
    """(source, path inside the package build) of every data file the wheel carries."""
    for folder, patterns in FOLDERS.items():
        found = sorted({f for pattern in patterns for f in (HERE / "data" / folder).glob(pattern) if f.is_file()})
        if not found:
            raise FileNotFoundError(f"data/{folder}/ holds no {' or '.join(patterns)}: nothing to package")
        for f in found:
            yield f, Path(*TARGET, folder, f.name)


class BuildPyWithData(build_py):
    def run(self):
        super().run()
        if not self.editable_mode:
            for source, target in packaged_files():
                dest = Path(self.build_lib, target)
                self.mkpath(str(dest.parent))
                self.copy_file(str(source), str(dest))

    def get_source_files(self):
        return [*super().get_source_files(), *(source.relative_to(HERE).as_posix() for source, _ in packaged_files())]

    def get_outputs(self, include_bytecode=True):
        outputs = super().get_outputs(include_bytecode)
        if self.editable_mode:
            return outputs
        return [*outputs, *(str(Path(self.build_lib, target)) for _, target in packaged_files())]


setup(cmdclass={"build_py": BuildPyWithData})
