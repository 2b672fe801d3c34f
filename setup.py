"""Maps the design card's top-level folders into one import namespace.

`conflictdesk/` is the engine, `store/` installs as `conflictdesk.store` and `tui/` as
`conflictdesk.tui`, so nothing claims the generic top-level names `store` or `tui`."""

from pathlib import Path

from setuptools import find_packages, setup

ROOTS = {"conflictdesk": "conflictdesk", "conflictdesk.store": "store", "conflictdesk.tui": "tui"}
HERE = Path(__file__).parent

packages: list[str] = []
package_dir: dict[str, str] = {}
for name, folder in ROOTS.items():
    if (HERE / folder / "__init__.py").exists():
        package_dir[name] = folder
        packages += [name] + [f"{name}.{sub}" for sub in find_packages(folder)]

setup(
    packages=packages,
    package_dir=package_dir,
    package_data={"conflictdesk.tui": ["*.tcss"]},
)
