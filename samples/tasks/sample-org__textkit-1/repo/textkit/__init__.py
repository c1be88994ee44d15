from .slug import slugify

__all__ = ["slugify"]
__version__ = "0.3.0"
