"""Maps the design card's top-level folders into one import namespace.

`conflictdesk/` is the engine, `store/` installs as `conflictdesk.store` and `tui/` as
`conflictdesk.tui`, so nothing claims the generic top-level names `store` or `tui`."""

from pathlib import Path

from setuptools import find_packages, setup

ROOTS = {"conflictdesk": "conflictdesk", "conflictdesk.store": "store", "conflictdesk.tui": "tui"}
# Data-only packages: the shipped models and the example collection travel inside the wheel, so
# a regular (non-editable) install finds them through importlib (conflictdesk/locations.py).
DATA_ROOTS = {"conflictdesk.models": "models", "conflictdesk.examples": "examples"}
HERE = Path(__file__).parent

packages: list[str] = []
package_dir: dict[str, str] = {}
for name, folder in ROOTS.items():
    if (HERE / folder / "__init__.py").exists():
        package_dir[name] = folder
        packages += [name] + [f"{name}.{sub}" for sub in find_packages(folder)]
for name, folder in DATA_ROOTS.items():
    if (HERE / folder).is_dir():
        package_dir[name] = folder
        packages.append(name)

setup(
    packages=packages,
    package_dir=package_dir,
    package_data={
        "conflictdesk.tui": ["*.tcss"],
        "conflictdesk.training": ["data/*/*"],  # the hand-written typed training cases
        **{name: ["**/*"] for name in DATA_ROOTS},
    },
)
