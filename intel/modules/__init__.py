"""Importing this package registers every module file in it with intel.registry: one file per module,
named after it; files starting with an underscore hold shared helpers and register nothing."""
import importlib
import pkgutil

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")
