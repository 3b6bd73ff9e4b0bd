"""Loads another script of this folder (they have no .py suffix) as a module, to share its definitions."""
import importlib.machinery
import importlib.util
import os


def load(name):
    """scripts/<name> as a module (its `main` not run)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_"), path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
