from .inner import square
