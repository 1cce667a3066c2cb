# Records where this repository is when the package is built from it (`pip install ./clients/python`):
# the installed plugin then finds the emulator's command line without any setting. pip builds a local
# folder in place, so this file's own folder is inside the clone. The record is only a hint: the
# plugin checks that the folder still holds bin/interactions-emulator.mjs before it uses it.

import os

from setuptools import setup
from setuptools.command.build_py import build_py

RECORD = "_build_root.txt"


class build_py_recording_the_repository(build_py):
    def run(self):
        super().run()
        repository = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
        if os.path.isfile(os.path.join(repository, "bin", "interactions-emulator.mjs")):
            target = os.path.join(self.build_lib, "pytest_interactions_emulator", RECORD)
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(repository + "\n")


setup(cmdclass={"build_py": build_py_recording_the_repository})
