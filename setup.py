"""Packages for setuptools: everything under graphrag/, plus the top-level migrations/
shipped inside the package as ``graphrag._migrations`` (metadata is in pyproject.toml)."""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["graphrag", "graphrag.*"])
    + ["graphrag._migrations", "graphrag._migrations.versions"],
    package_dir={"graphrag._migrations": "migrations"},
)
