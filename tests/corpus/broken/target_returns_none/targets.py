def nothing(i):
    return None
