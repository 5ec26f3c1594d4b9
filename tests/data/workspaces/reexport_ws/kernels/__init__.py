from .square import square
