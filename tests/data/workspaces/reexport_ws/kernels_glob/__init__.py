from .square import square as sq
