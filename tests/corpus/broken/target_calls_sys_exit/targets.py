import sys

def leave(i):
    sys.exit(3)
