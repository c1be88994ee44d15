from .stats import mean, median

__all__ = ["mean", "median"]
__version__ = "1.0.2"
