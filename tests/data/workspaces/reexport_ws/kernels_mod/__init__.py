from .square import *
