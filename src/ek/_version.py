"""ek's version, in the base layer so reports can name it without importing the package's public face."""

__version__ = "0.1.0"
