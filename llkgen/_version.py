"""llkgen's version, in a module of its own so that any part of the package can name it without
importing the package's face."""

__version__ = "0.1.0"
